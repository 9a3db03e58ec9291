import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import {
  CONSOLE_STACK_TIMEOUT_MS,
  signIn,
  startConsoleStack,
  type ConsoleStack,
  visible,
} from '../support/console-browser';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { toolBody } from '../factories/tool.factory';
import { agentWorkflow } from '../support/workflow-fixtures';

/** Issue 21 item 6: names, not ids — an owner column for admins, workflow names on the approvals page. */
describe('console owners and workflow names (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const admin = bearer(ADMIN_KEY);

  const keyFor = async (name: string, userId: string): Promise<string> => {
    const created = await request(stack.app.http)
      .post('/api/v1/api-keys')
      .set(admin)
      .send({ name, role: 'user', user_id: userId })
      .expect(201);
    return (created.body as { key: string }).key;
  };

  beforeAll(async () => {
    stack = await startConsoleStack();
    ({ context, page, errors } = await stack.newPage());
  }, CONSOLE_STACK_TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  it("should show an admin each tool's owner by key name, and a user no owner column", async () => {
    const alice = await keyFor('alice-laptop', 'u-alice');
    const bob = await keyFor('bob-ci', 'u-bob');
    for (const key of [alice, bob]) {
      await request(stack.app.http)
        .post('/api/v1/tools')
        .set(bearer(key))
        .send(toolBody({ name: 'twin_add' }))
        .expect(201);
    }

    await signIn(page, `${stack.url}/console/tools?q=twin_add`, ADMIN_KEY);
    const rows = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'twin_add', exact: true }) });
    await visible(rows);
    await visible(page.getByRole('columnheader', { name: 'Owner' }));
    await visible(rows.filter({ hasText: 'alice-laptop' }));
    await visible(rows.filter({ hasText: 'bob-ci' }));
    expect(await rows.count()).toBe(2);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, `${stack.url}/console/tools?q=twin_add`, alice);
    await visible(rows);
    expect(await rows.count()).toBe(1);
    expect(await page.getByRole('columnheader', { name: 'Owner' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('should name the workflow and its version on the approvals page, not an id', async () => {
    await request(stack.app.http)
      .post('/api/v1/tools')
      .set(admin)
      .send(toolBody({ name: 'refund_twice', effect: 'dangerous', requires_approval: true }))
      .expect(201);
    const definition = agentWorkflow({ enable_tools: true, tools: ['refund_twice'] });
    const workflow = (await request(stack.app.http).post('/api/v1/workflows').set(admin).send(definition).expect(201))
      .body as { id: string; name: string; version: number };
    stack.llm.script([reply.toolCalls([{ name: 'refund_twice', arguments: { a: 1, b: 2 } }])]);
    await request(stack.app.http)
      .post(`/api/v1/workflows/${workflow.id}/runs?wait=true`)
      .set(admin)
      .send({ inputs: { question: 'Refund it.' } })
      .expect(202);

    await signIn(page, `${stack.url}/console/approvals`, ADMIN_KEY);
    const card = page.getByTestId('approval-card');
    await visible(card.getByText('refund_twice'));
    const link = card.getByRole('link', { name: `${workflow.name} v${workflow.version}` });
    await visible(link);
    expect(await link.getAttribute('href')).toBe(`/console/workflows/${workflow.id}`);
    expect(await card.textContent()).not.toContain(workflow.id);
    expect(errors).toEqual([]);
  });
});
