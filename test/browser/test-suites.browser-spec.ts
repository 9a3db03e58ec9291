import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { signIn, startConsoleStack, type ConsoleStack, visible } from '../support/console-browser';
import { reply, type RecordedRequest } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';

const question = (recorded: RecordedRequest): string =>
  String((recorded.body.messages as Array<{ content: string }>).at(-1)?.content);

describe('console test suites (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const admin = bearer(ADMIN_KEY);

  beforeAll(async () => {
    stack = await startConsoleStack();
    ({ context, page, errors } = await stack.newPage());
    await signIn(page, `${stack.url}/console/workflows`, ADMIN_KEY);
  });

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  });

  it('should run a suite, show the failing case and open its run trace', async () => {
    const workflow = (
      await request(stack.app.http).post('/api/v1/workflows').set(admin).send(agentWorkflow({})).expect(201)
    ).body as { id: string };
    await request(stack.app.http)
      .put(`/api/v1/workflows/${workflow.id}/tests`)
      .set(admin)
      .send({
        cases: ['oslo', 'rome'].map((city) => ({
          name: city,
          inputs: { question: city },
          assertions: [{ type: 'text_contains', value: city === 'rome' ? 'Roma' : 'oslo' }],
        })),
      })
      .expect(200);
    const echo = () => reply.from((recorded) => reply.text(`Answer: ${question(recorded)}`));
    stack.llm.script([echo(), echo()]);

    await page.goto(`${stack.url}/console/workflows/${workflow.id}`);
    await page.getByRole('link', { name: 'Tests', exact: true }).click();
    await visible(page.getByText('2 case(s) in the suite.'));
    await page.getByRole('button', { name: 'Run suite' }).click();

    const failing = page.getByRole('row').filter({ hasText: 'rome' });
    await visible(failing.getByText('text_contains: does not contain "Roma" (actual "Answer: rome")'));
    await visible(page.getByText('1 passed, 1 failed'));
    await failing.getByRole('link', { name: 'trace of rome' }).click();

    await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    await visible(page.getByText('Answer: rome'));
    expect(errors).toEqual([]);
  });
});
