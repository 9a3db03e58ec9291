import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import {
  CONSOLE_STACK_TIMEOUT_MS,
  seriousViolations,
  signIn,
  startConsoleStack,
  type ConsoleStack,
  visible,
} from '../support/console-browser';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

type Message = { role: string; content: string | null };

describe('console approvals (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let workflowId: string;

  const shot = async (name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  const admin = bearer(ADMIN_KEY);
  const startRun = async (question: string) => {
    const response = await request(stack.app.http)
      .post(`/api/v1/workflows/${workflowId}/runs`)
      .set(admin)
      .send({ inputs: { question } });
    expect(response.status).toBeLessThan(300);
    return (response.body as { id: string }).id;
  };
  const toolMessage = (index: number) =>
    (stack.llm.requests[index].body.messages as Message[]).find((message) => message.role === 'tool');

  beforeAll(async () => {
    stack = await startConsoleStack();
    ({ context, page, errors } = await stack.newPage());
    await request(stack.app.http)
      .post('/api/v1/tools')
      .set(admin)
      .send({
        name: 'issue_refund',
        description: 'Refunds an order',
        implementation_type: 'code',
        effect: 'mutating',
        requires_approval: true,
        function_schema: {
          type: 'function',
          function: {
            name: 'issue_refund',
            description: 'Refunds an order',
            parameters: {
              type: 'object',
              properties: { order_id: { type: 'string', pattern: '^A-[0-9]+$' }, amount: { type: 'number' } },
              required: ['order_id', 'amount'],
            },
          },
        },
        implementation_config: {
          language: 'javascript',
          code: 'return { refunded: args.amount, order: args.order_id };',
        },
      })
      .expect(201);
    const workflow = await request(stack.app.http)
      .post('/api/v1/workflows')
      .set(admin)
      .send(agentWorkflow({ enable_tools: true, tools: ['issue_refund'] }))
      .expect(201);
    workflowId = (workflow.body as { id: string }).id;
    await signIn(page, `${stack.url}/console/approvals`, ADMIN_KEY);
  }, CONSOLE_STACK_TIMEOUT_MS);

  afterEach(() => stack.llm.reset());

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  it('should approve a waiting call with edited arguments after the API refused an invalid edit', async () => {
    stack.llm.script([
      reply.toolCalls([{ name: 'issue_refund', arguments: { order_id: 'A-17', amount: 80 } }]),
      reply.text('Refunded **50** on A-17.'),
    ]);
    const runId = await startRun('Refund order A-17');

    // The list page refreshes by itself and links the run.
    const card = page.getByTestId('approval-card');
    await visible(card.getByText('issue_refund'));
    expect(await card.locator('pre').textContent()).toContain('"amount": 80');
    await shot('approvals');
    expect(await seriousViolations(page)).toEqual([]);
    await card.getByRole('link', { name: runId.slice(0, 8) }).click();
    await page.waitForURL(new RegExp(`/console/runs/${runId}$`));

    // On the run page the card sits under its tool call.
    await visible(page.getByTestId('run-status').getByText('waiting'));
    const pending = page.getByTestId('approval-card');
    await visible(pending.getByRole('button', { name: 'Approve' }));
    // Waiting is not running: the node and the call say so, and the call's timeline bar does not grow.
    await visible(page.getByTestId('waiting-since'));
    expect(await page.getByTestId('waiting-since').textContent()).toMatch(/waiting for approval since \d/);
    const llmNode = await page.locator('section.node[aria-label="Node llm-1"] .node-head').textContent();
    expect(llmNode).toContain('waiting');
    expect(llmNode).not.toContain('running');
    const timeline = page.getByRole('table', { name: /Timeline/ });
    const toolRow = timeline.getByRole('row').filter({ hasText: 'issue_refund' });
    expect(await toolRow.textContent()).toContain('waiting');
    expect(await toolRow.textContent()).not.toMatch(/\d ms/);
    await shot('run-approval');
    expect(await seriousViolations(page)).toEqual([]);

    await pending.getByRole('button', { name: 'Edit arguments' }).click();
    const orderField = pending.locator('input[id$="-order_id"]');
    await visible(orderField);
    await orderField.fill('B-17');
    await pending.getByRole('button', { name: 'Approve with these arguments' }).click();
    // 422: the API names the field that does not fit the tool's schema; nothing was decided.
    await visible(pending.getByRole('alert').getByText('order_id', { exact: false }));
    await orderField.fill('A-17');
    const amountField = pending.locator('input[id$="-amount"]');
    await amountField.fill('50');
    await amountField.blur();
    await pending.getByRole('button', { name: 'Approve with these arguments' }).click();

    await pending.waitFor({ state: 'detached' });
    const answer = page.getByTestId('answer');
    await visible(answer.locator('strong'));
    await visible(page.getByTestId('run-status').getByText('succeeded'));
    expect(await page.getByTestId('tool-card').textContent()).toContain('"refunded": 50');
    // The edited arguments replaced the model's.
    expect(toolMessage(1)?.content).toContain('50');
    expect(toolMessage(1)?.content).not.toContain('80');
    // The run page shows what ran, marked as edited, with the model's arguments one click away; also after a reload.
    for (const reload of [false, true]) {
      if (reload) await page.reload();
      const card = page.getByTestId('tool-card');
      await visible(card.getByTestId('edited-mark'));
      expect(await card.getByTestId('edited-mark').textContent()).toMatch(
        /edited by bootstrap admin \(ADMIN_API_KEY\) at \d/,
      );
      expect(await card.getByLabel('Arguments', { exact: true }).textContent()).toContain('"amount": 50');
      await card.getByRole('button', { name: "Show the model's arguments" }).click();
      expect(await card.getByLabel("The model's arguments").textContent()).toContain('"amount": 80');
    }
    const detail = await request(stack.app.http).get(`/api/v1/runs/${runId}`).set(admin).expect(200);
    expect((detail.body as { nodes: Array<{ tool_calls: unknown[] }> }).nodes[1].tool_calls[0]).toMatchObject({
      arguments: { order_id: 'A-17', amount: 50 },
      model_arguments: { order_id: 'A-17', amount: 80 },
      edited_by: 'bootstrap admin (ADMIN_API_KEY)',
    });
  });

  it('should reject a waiting call with a comment the model gets verbatim', async () => {
    stack.llm.script([
      reply.toolCalls([{ name: 'issue_refund', arguments: { order_id: 'A-18', amount: 999 } }]),
      reply.text('I will not refund A-18.'),
    ]);
    const runId = await startRun('Refund order A-18');
    await page.goto(`${stack.url}/console/runs/${runId}`);
    const pending = page.getByTestId('approval-card');
    await visible(pending.getByRole('button', { name: 'Reject' }));
    await pending.getByRole('button', { name: 'Reject' }).click();
    await pending.getByLabel('Comment for the model').fill('Too much: ask a manager first.');
    await pending.getByRole('button', { name: 'Reject call' }).click();

    await pending.waitFor({ state: 'detached' });
    await visible(page.getByTestId('run-status').getByText('succeeded'));
    await visible(page.getByTestId('tool-card').getByText('rejected'));
    expect(toolMessage(1)?.content).toContain('Too much: ask a manager first.');
    expect(errors.filter((error) => !/status of 422 /.test(error))).toEqual([]);
  });
});
