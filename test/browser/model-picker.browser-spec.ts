import type { Page } from 'playwright-core';
import { consolePage, type ConsoleStack, visible } from '../support/console-browser';
import request from 'supertest';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';

describe('Provider and model pickers fed by GET /providers (browser)', () => {
  let stack: ConsoleStack;
  let page: Page;
  let errors: string[];
  consolePage(
    {
      path: '/console/workflows/new',
      prepare: (started) => {
        started.llm.listModels(['test-model', 'listed-model']);
      },
    },
    (opened) => ({ stack, page, errors } = opened),
  );

  const definition = async () =>
    JSON.parse(await page.locator('#workflow-json').inputValue()) as {
      nodes: Array<{ id: string; data: Record<string, unknown> }>;
    };
  const llmData = async () => (await definition()).nodes.find((node) => node.id === 'llm-1')?.data ?? {};

  it('should offer the listed models with context and price, and keep a typed model name exactly', async () => {
    await page.goto(`${stack.url}/console/workflows/new`);
    await page.locator('[data-node="llm-1"]').click();
    const panel = page.getByRole('region', { name: 'Node llm-1' });
    await panel.getByRole('tab', { name: 'Model' }).click();

    await panel.locator('#llm-1-picker-provider').click();
    await visible(page.getByText('openai (openai-chat) · default'));
    await page.getByText('openai (openai-chat) · default').click();
    expect(await llmData()).toMatchObject({ provider: 'openai' });

    await panel.locator('#llm-1-picker-model').click();
    const listed = page.getByText(/^listed-model · \d+k context · no price$/);
    await visible(listed);
    await visible(page.getByText(/^test-model · default · /));
    await listed.click();
    expect(await llmData()).toMatchObject({ provider: 'openai', model: 'listed-model' });

    // A model the list lacks is typed and kept as typed.
    await panel.locator('#llm-1-picker-model').click();
    await page.keyboard.type('My-Model_v2');
    await page.keyboard.press('Enter');
    expect(await llmData()).toMatchObject({ model: 'My-Model_v2' });
    expect(errors).toEqual([]);
  });

  it("should show each model call's cost, and say unknown for a model with no price", async () => {
    stack.llm.script([reply.text('Hello.', { usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })]);
    const response = await request(stack.app.http)
      .post('/api/v1/workflow-runs?wait=true')
      .set(bearer(ADMIN_KEY))
      .send({ definition: agentWorkflow({}), inputs: { question: 'Hi?' } })
      .expect(200);
    const run = response.body as { id: string; cost: unknown };
    expect(run.cost).toBeNull();

    await page.goto(`${stack.url}/console/runs/${run.id}`);
    const call = page.getByTestId('model-call').first();
    await visible(call.getByText('7 tokens (5 in / 2 out), cost unknown'));
    await visible(page.getByText(/over 1 model calls, cost unknown$/));
    expect(errors).toEqual([]);
  });
});
