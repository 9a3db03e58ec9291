import type { Page } from 'playwright-core';
import request from 'supertest';
import { consolePage, seriousViolations, type ConsoleStack, visible } from '../support/console-browser';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';

interface WorkflowBody {
  id: string;
  name: string;
  version: number;
  definition: Record<string, unknown>;
}

describe('console workflow versions (browser)', () => {
  let stack: ConsoleStack;
  let page: Page;
  let errors: string[];
  const admin = bearer(ADMIN_KEY);
  const cleanUp = consolePage({ path: '/console/workflows' }, (opened) => ({ stack, page, errors } = opened));

  it('should list the versions, show what changed between two and roll back to an earlier one', async () => {
    const first = { ...agentWorkflow({}), description: 'first words' };
    const created = (await request(stack.app.http).post('/api/v1/workflows').set(admin).send(first).expect(201))
      .body as WorkflowBody;
    cleanUp.push(async () => {
      await request(stack.app.http).delete(`/api/v1/workflows/${created.id}`).set(admin);
    });
    await request(stack.app.http)
      .put(`/api/v1/workflows/${created.id}`)
      .set(admin)
      .send({ ...first, description: 'second words' })
      .expect(200);

    await page.goto(`${stack.url}/console/workflows/${created.id}`);
    const list = page.getByTestId('version-list');
    await visible(list.getByText('current'));
    const diff = page.getByTestId('version-diff');
    await visible(diff.getByText('- "description": "first words"'));
    await visible(diff.getByText('+ "description": "second words"'));

    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    await visible(page.getByText('v3', { exact: true }));
    const stored = (await request(stack.app.http).get(`/api/v1/workflows/${created.id}`).set(admin).expect(200))
      .body as WorkflowBody;
    expect(stored).toMatchObject({ version: 3, definition: first });
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
