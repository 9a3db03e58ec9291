import type { Page } from 'playwright-core';
import request from 'supertest';
import { consolePage, seriousViolations, type ConsoleStack, visible } from '../support/console-browser';
import { ADMIN_KEY, bearer } from '../support/test-app';

interface WorkflowBody {
  id: string;
  definition: { nodes: Array<{ id: string; type: string; data: Record<string, unknown> }> };
}

describe('console map node (browser)', () => {
  let stack: ConsoleStack;
  let page: Page;
  let errors: string[];
  const admin = bearer(ADMIN_KEY);
  const cleanUp = consolePage({ path: '/console/workflows' }, (opened) => ({ stack, page, errors } = opened));

  it('should build a map node in the editor, run it over 3 items and list the 3 items on the run page', async () => {
    const created = (
      await request(stack.app.http)
        .post('/api/v1/workflows')
        .set(admin)
        .send({
          name: 'cities-map',
          inputs: {
            type: 'object',
            properties: { cities: { type: 'array', items: { type: 'string' } } },
            required: ['cities'],
          },
          nodes: [
            { id: 'start', type: 'start', data: {} },
            { id: 'end', type: 'end', data: { outputs: { done: 'yes' } } },
          ],
          edges: [{ source: 'start', target: 'end' }],
        })
        .expect(201)
    ).body as WorkflowBody;
    cleanUp.push(async () => {
      await request(stack.app.http).delete(`/api/v1/workflows/${created.id}`).set(admin);
    });

    await page.goto(`${stack.url}/console/workflows/${created.id}`);
    await page.locator('[data-node="start"]').click();
    await page.getByLabel('New node', { exact: true }).selectOption('map');
    await page.getByRole('button', { name: 'Add after start' }).click();
    const panel = page.getByRole('region', { name: 'Node map-1' });
    await visible(panel);
    await panel.locator('#map-1-items').fill('{{inputs.cities}}');
    await panel.getByLabel('Nested node', { exact: true }).selectOption('template');
    await panel.getByRole('button', { name: 'Add nested node' }).click();
    await visible(panel.getByRole('list', { name: 'Nested nodes of map-1' }).getByText('template-1'));
    await visible(page.locator('[data-node="map-1"]').getByText('map · 1 nested node'));

    await page.getByRole('button', { name: 'Save' }).click();
    await visible(page.getByText('v2', { exact: true }));
    const stored = (await request(stack.app.http).get(`/api/v1/workflows/${created.id}`).set(admin).expect(200))
      .body as WorkflowBody;
    expect(stored.definition.nodes.map((node) => node.id)).toEqual(['start', 'map-1', 'end']);
    expect(stored.definition.nodes[1].data).toMatchObject({
      items: '{{inputs.cities}}',
      concurrency: 4,
      nodes: [
        { type: 'start' },
        { id: 'template-1', type: 'template', data: { template: '{{item}}' } },
        { type: 'end' },
      ],
    });
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('dialog').locator('#input-cities').fill('["Oslo", "Lima", "Pune"]');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    await visible(page.getByTestId('run-status').getByText('succeeded'));

    const seeItems = async () => {
      const nested = page.getByRole('region', { name: 'Node map-1' }).getByTestId('nested-runs');
      await visible(nested.getByText('Items (3)'));
      await nested.getByText('Items (3)').click();
      const rows = nested.getByTestId('nested-run');
      await visible(rows.nth(2));
      expect(await rows.allTextContents()).toEqual([
        expect.stringMatching(/^#0\s*succeeded\d+ ms0$/),
        expect.stringMatching(/^#1\s*succeeded\d+ ms0$/),
        expect.stringMatching(/^#2\s*succeeded\d+ ms0$/),
      ]);
    };
    await seeItems();
    expect(await seriousViolations(page)).toEqual([]);
    // After a reload the list comes from the node's stored output as well as the replayed events.
    await page.reload();
    await visible(page.getByTestId('run-status').getByText('succeeded'));
    await seeItems();
    expect(errors).toEqual([]);
  });
});
