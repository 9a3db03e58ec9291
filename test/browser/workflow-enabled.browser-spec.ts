import type { Page } from 'playwright-core';
import request from 'supertest';
import { consolePage, seriousViolations, type ConsoleStack, visible } from '../support/console-browser';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

interface WorkflowBody {
  id: string;
  name: string;
  enabled: boolean;
  version: number;
}

describe('console workflow enabled (browser)', () => {
  let stack: ConsoleStack;
  let page: Page;
  let errors: string[];
  const admin = bearer(ADMIN_KEY);
  // Each test deletes what it created, so the others see the lists as they were.
  const cleanUp = consolePage({ path: '/console/workflows' }, (opened) => ({ stack, page, errors } = opened));

  const createWorkflow = async (definition: Record<string, unknown>): Promise<WorkflowBody> => {
    const created = (await request(stack.app.http).post('/api/v1/workflows').set(admin).send(definition).expect(201))
      .body as WorkflowBody;
    cleanUp.push(async () => {
      await request(stack.app.http).delete(`/api/v1/workflows/${created.id}`).set(admin);
    });
    return created;
  };
  const stored = async (id: string) =>
    (await request(stack.app.http).get(`/api/v1/workflows/${id}`).set(admin).expect(200)).body as WorkflowBody;
  const enabledSwitch = () => page.getByRole('switch', { name: 'Enabled' });
  const enabledCell = async (name: string) => {
    await page.goto(`${stack.url}/console/workflows`);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    await visible(row);
    const headers = await page.getByRole('columnheader').allTextContents();
    return row.getByRole('cell').nth(headers.findIndex((header) => header.trim() === 'Enabled'));
  };

  it('should show whether a workflow is enabled in the list and turn it off and on again from its page', async () => {
    const workflow = await createWorkflow(agentWorkflow({}));
    expect(await (await enabledCell(workflow.name)).textContent()).toBe('yes');

    await page.goto(`${stack.url}/console/workflows/${workflow.id}`);
    await visible(page.getByText(`v${workflow.version}`));
    expect(await enabledSwitch().getAttribute('aria-checked')).toBe('true');
    await enabledSwitch().click();
    await visible(page.getByText('Disabled: new runs of this workflow are refused (409).'));

    expect(await enabledSwitch().getAttribute('aria-checked')).toBe('false');
    expect(await stored(workflow.id)).toMatchObject({ enabled: false, version: workflow.version + 1 });
    await request(stack.app.http)
      .post(`/api/v1/workflows/${workflow.id}/runs`)
      .set(admin)
      .send({ inputs: { question: 'Anything?' } })
      .expect(409);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await (await enabledCell(workflow.name)).textContent()).toBe('no');

    await page.goto(`${stack.url}/console/workflows/${workflow.id}`);
    await visible(page.getByText('Disabled: new runs of this workflow are refused (409).'));
    await enabledSwitch().click();
    await page.getByText('Disabled: new runs of this workflow are refused (409).').waitFor({ state: 'detached' });
    expect(await enabledSwitch().getAttribute('aria-checked')).toBe('true');
    expect(await stored(workflow.id)).toMatchObject({ enabled: true, version: workflow.version + 2 });
    expect(errors).toEqual([]);
  });

  it("should show the API's error and leave the workflow off when it cannot be enabled", async () => {
    const tool = `enabled_probe_${Date.now().toString(36)}`;
    await request(stack.app.http)
      .post('/api/v1/tools')
      .set(admin)
      .send(httpToolBody(tool, 'https://api.example.com/items?id={id}'))
      .expect(201);
    const workflow = await createWorkflow(agentWorkflow({ enable_tools: true, tools: [tool] }));
    // Deleting the tool anyway disables the workflow that uses it.
    await request(stack.app.http).delete(`/api/v1/tools/${tool}?force=true`).set(admin).expect(204);
    expect(await stored(workflow.id)).toMatchObject({ enabled: false });

    await page.goto(`${stack.url}/console/workflows/${workflow.id}`);
    await visible(page.getByText('Disabled: new runs of this workflow are refused (409).'));
    await enabledSwitch().click();

    const error = page.getByTestId('enabled-error');
    await visible(error);
    expect(await error.textContent()).toContain(tool);
    expect(await enabledSwitch().getAttribute('aria-checked')).toBe('false');
    expect(await stored(workflow.id)).toMatchObject({ enabled: false, version: workflow.version });
  });

  it('should show a 412 when the workflow changed since the page read it, and save nothing', async () => {
    const workflow = await createWorkflow(agentWorkflow({}));
    await page.goto(`${stack.url}/console/workflows/${workflow.id}`);
    await visible(page.getByText(`v${workflow.version}`));
    await request(stack.app.http)
      .put(`/api/v1/workflows/${workflow.id}`)
      .set(admin)
      .send({ ...agentWorkflow({}), name: workflow.name, description: 'Changed elsewhere' })
      .expect(200);

    await enabledSwitch().click();

    await visible(page.getByTestId('enabled-error'));
    expect(await enabledSwitch().getAttribute('aria-checked')).toBe('true');
    expect(await stored(workflow.id)).toMatchObject({ enabled: true, version: workflow.version + 1 });
  });
});
