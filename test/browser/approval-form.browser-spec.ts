import type { BrowserContext, Locator, Page } from 'playwright-core';
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

type Arguments = Record<string, unknown>;

/** A code tool that needs approval and answers with the arguments it ran with. */
const echoTool = (name: string, properties: Record<string, unknown>) => ({
  name,
  description: `Echoes the arguments of ${name}`,
  implementation_type: 'code',
  effect: 'mutating',
  requires_approval: true,
  function_schema: {
    type: 'function',
    function: {
      name,
      description: `Echoes the arguments of ${name}`,
      parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
    },
  },
  implementation_config: { language: 'javascript', code: 'return { ran_with: args };' },
});

/**
 * The approval form sends exactly what the person typed: no clamping, rounding or coercion. The API's 422 is shown
 * at the field, and nothing more is sent until the person changes the refused arguments.
 */
describe('console approval form (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  /** Bodies of the decisions the browser posted, in order. */
  let decisions: Arguments[];
  const workflows: Record<string, string> = {};
  const admin = bearer(ADMIN_KEY);

  beforeAll(async () => {
    stack = await startConsoleStack();
    ({ context, page } = await stack.newPage());
    page.on('request', (sent) => {
      if (sent.method() === 'POST' && /\/approvals\/[^/]+$/.test(sent.url())) decisions.push(sent.postDataJSON());
    });
    const tools = [
      echoTool('issue_refund', { order_id: { type: 'string' }, amount: { type: 'number', maximum: 100 } }),
      echoTool('book_stay', {
        nights: { type: 'integer', minimum: 1, maximum: 14 },
        guest: { type: 'string', maxLength: 10 },
        room: { type: 'string', pattern: '^R[0-9]{3}$' },
        beds: { type: 'integer', enum: [1, 2, 4] },
      }),
    ];
    for (const tool of tools) {
      await request(stack.app.http).post('/api/v1/tools').set(admin).send(tool).expect(201);
      const workflow = await request(stack.app.http)
        .post('/api/v1/workflows')
        .set(admin)
        .send(agentWorkflow({ enable_tools: true, tools: [tool.name] }))
        .expect(201);
      workflows[tool.name] = (workflow.body as { id: string }).id;
    }
    await signIn(page, `${stack.url}/console/approvals`, ADMIN_KEY);
  }, CONSOLE_STACK_TIMEOUT_MS);

  beforeEach(() => {
    decisions = [];
  });

  afterEach(() => stack.llm.reset());

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  /** A run whose model calls `tool` with `args`, opened on its page with the approval's edit form. */
  const editApproval = async (tool: string, args: Arguments): Promise<Locator> => {
    stack.llm.script([reply.toolCalls([{ name: tool, arguments: args }]), reply.text('Done.')]);
    const response = await request(stack.app.http)
      .post(`/api/v1/workflows/${workflows[tool]}/runs`)
      .set(admin)
      .send({ inputs: { question: `Call ${tool}` } });
    expect(response.status).toBeLessThan(300);
    await page.goto(`${stack.url}/console/runs/${(response.body as { id: string }).id}`);
    const card = page.getByTestId('approval-card');
    await visible(card.getByRole('button', { name: 'Edit arguments' }));
    await card.getByRole('button', { name: 'Edit arguments' }).click();
    await visible(card.getByRole('button', { name: 'Approve with these arguments' }));
    return card;
  };
  const field = (card: Locator, name: string) => card.locator(`[id$="-${name}"]`).first();
  const problem = (card: Locator, name: string) => card.locator(`[id$="-${name}-problem"]`);
  const approveButton = (card: Locator) => card.getByRole('button', { name: 'Approve with these arguments' });

  /** Types `text`, approves, and expects the API's 422 at the field with the typed value sent and kept as typed. */
  const expectRefusedAsTyped = async (card: Locator, name: string, text: string, sent: unknown, message: RegExp) => {
    await field(card, name).fill(text);
    await field(card, name).blur();
    await approveButton(card).click();
    await visible(problem(card, name));
    expect(await problem(card, name).textContent()).toMatch(message);
    expect(decisions.at(-1)?.arguments).toMatchObject({ [name]: sent });
    expect(await field(card, name).inputValue()).toBe(text);
    expect(await field(card, name).getAttribute('aria-invalid')).toBe('true');
    // Nothing is sent again until the person changes the refused arguments.
    expect(await approveButton(card).isDisabled()).toBe(true);
    expect(decisions).toHaveLength(1);
  };

  /** Changes the field, approves, and expects the run to finish with the tool having run with exactly `value`. */
  const expectRanWith = async (card: Locator, name: string, text: string, value: unknown) => {
    await field(card, name).fill(text);
    await visible(approveButton(card).and(page.locator(':enabled')));
    expect(await problem(card, name).count()).toBe(0);
    await approveButton(card).click();
    await card.waitFor({ state: 'detached' });
    await visible(page.getByTestId('run-status').getByText('succeeded'));
    expect(decisions.at(-1)?.arguments).toMatchObject({ [name]: value });
    const toolMessage = (stack.llm.requests[1].body.messages as Array<{ role: string; content: string }>).find(
      (message) => message.role === 'tool',
    );
    expect(JSON.parse(toolMessage?.content ?? '{}')).toMatchObject({ ran_with: { [name]: value } });
  };

  it('should send the refund amount as typed (500 over a maximum of 100), show the 422 at it and send 100 once changed', async () => {
    const card = await editApproval('issue_refund', { order_id: 'A-17', amount: 80 });
    await expectRefusedAsTyped(card, 'amount', '500', 500, /amount must be <= 100/);
    await expectRanWith(card, 'amount', '100', 100);
  });

  it('should not clamp below a minimum', async () => {
    const card = await editApproval('book_stay', { nights: 3, guest: 'Ann', room: 'R101', beds: 2 });
    await expectRefusedAsTyped(card, 'nights', '0', 0, /nights must be >= 1/);
    await expectRanWith(card, 'nights', '1', 1);
  });

  it('should not clamp above a maximum', async () => {
    const card = await editApproval('book_stay', { nights: 3, guest: 'Ann', room: 'R101', beds: 2 });
    await expectRefusedAsTyped(card, 'nights', '15', 15, /nights must be <= 14/);
    await expectRanWith(card, 'nights', '14', 14);
  });

  it('should not round a fraction typed into an integer field', async () => {
    const card = await editApproval('book_stay', { nights: 3, guest: 'Ann', room: 'R101', beds: 2 });
    await expectRefusedAsTyped(card, 'nights', '2.5', 2.5, /nights must be integer/);
    await expectRanWith(card, 'nights', '2', 2);
  });

  it('should not cut text past a maxLength', async () => {
    const card = await editApproval('book_stay', { nights: 3, guest: 'Ann', room: 'R101', beds: 2 });
    await expectRefusedAsTyped(card, 'guest', 'Bartholomew Jr', 'Bartholomew Jr', /guest must NOT have more than 10/);
    await expectRanWith(card, 'guest', 'Bart', 'Bart');
  });

  it('should send text that breaks a pattern as typed', async () => {
    const card = await editApproval('book_stay', { nights: 3, guest: 'Ann', room: 'R101', beds: 2 });
    await expectRefusedAsTyped(card, 'room', 'r101', 'r101', /room must match pattern/);
    await expectRanWith(card, 'room', 'R102', 'R102');
  });

  it('should offer exactly the enum and send the chosen value with its type', async () => {
    const card = await editApproval('book_stay', { nights: 3, guest: 'Ann', room: 'R101', beds: 2 });
    await card.locator('.n-base-selection').click();
    const options = page.locator('.n-base-select-option');
    await visible(options);
    expect(await options.allTextContents()).toEqual(['1', '2', '4']);
    await options.filter({ hasText: '4' }).click();
    await approveButton(card).click();
    await card.waitFor({ state: 'detached' });
    // The run ends before the next test resets the model's script: its last call must not take the next test's turn.
    await visible(page.getByTestId('run-status').getByText('succeeded'));
    expect(decisions).toEqual([{ decision: 'approve', arguments: { nights: 3, guest: 'Ann', room: 'R101', beds: 4 } }]);
  });

  it('should send nothing while a number field holds text that is not a number', async () => {
    const card = await editApproval('issue_refund', { order_id: 'A-19', amount: 80 });
    await field(card, 'amount').fill('12a');
    await visible(problem(card, 'amount'));
    expect(await problem(card, 'amount').textContent()).toMatch(/amount is not a number/);
    expect(await field(card, 'amount').inputValue()).toBe('12a');
    expect(await approveButton(card).isDisabled()).toBe(true);
    await expectRanWith(card, 'amount', '12', 12);
    expect(decisions).toHaveLength(1);
  });
});
