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
import { agentWorkflow } from '../support/workflow-fixtures';

describe('console run page, calls repaired from the text (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const admin = bearer(ADMIN_KEY);

  beforeAll(async () => {
    stack = await startConsoleStack();
    ({ context, page, errors } = await stack.newPage());
    await request(stack.app.http)
      .post('/api/v1/tools')
      .set(admin)
      .send({
        name: 'lookup',
        description: 'Looks a record up',
        implementation_type: 'code',
        function_schema: {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Looks a record up',
            parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          },
        },
        implementation_config: { language: 'javascript', code: 'return { found: args.id };' },
      })
      .expect(201);
    await signIn(page, `${stack.url}/console/runs`, ADMIN_KEY);
  }, CONSOLE_STACK_TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  it('should show a call written as bare JSON as a repaired call, not as the answer', async () => {
    const raw = '{"name": "lookup", "arguments": {"id": "t1"}}';
    stack.llm.script([reply.text(raw, { chunkSize: 5 }), reply.text('Found **t1**.')]);
    const run = await request(stack.app.http)
      .post('/api/v1/workflow-runs?wait=true')
      .set(admin)
      .send({ definition: agentWorkflow({ enable_tools: true, tools: ['lookup'] }), inputs: { question: 'Find t1' } })
      .expect(200);
    const runId = (run.body as { id: string; status: string }).id;
    expect((run.body as { status: string }).status).toBe('succeeded');

    for (const reload of [false, true]) {
      if (reload) await page.reload();
      else await page.goto(`${stack.url}/console/runs/${runId}`);
      await visible(page.getByTestId('run-status').getByText('succeeded'));
      const card = page.getByTestId('tool-card');
      await visible(card.getByTestId('repair-mark'));
      expect(await card.getByTestId('repair-mark').textContent()).toContain('json_answer');
      expect(await card.getByLabel('Arguments', { exact: true }).textContent()).toContain('"id": "t1"');
      expect(await card.textContent()).toContain('"found": "t1"');
      await visible(page.getByTestId('answer').locator('strong'));
      expect(await page.getByTestId('answer').textContent()).toContain('Found t1.');
      // The raw call is nowhere shown as text the model answered.
      for (const streamed of await page.getByTestId('streamed-text').allTextContents()) {
        expect(streamed).not.toContain('"name"');
      }
      expect(await page.getByTestId('answer').textContent()).not.toContain('"name"');
    }
    expect(errors).toEqual([]);
  });
});
