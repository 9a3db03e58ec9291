import type { Page } from 'playwright-core';
import request from 'supertest';
import {
  CONSOLE_STACK_TIMEOUT_MS,
  settled,
  signIn,
  startConsoleStack,
  type ConsoleStack,
  visible,
} from '../support/console-browser';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { agentWorkflow } from '../support/workflow-fixtures';

/** Model text with no place to break a line: what made the run page 572 px wide at 390 px. */
const UNBROKEN = `https://example.com/${'a1b2c3d4'.repeat(40)}`;
const PHONE = 390;

/** Every console page, filled with long unbroken text, fits 390 px: nothing scrolls sideways. */
describe('console at phone width (browser)', () => {
  let stack: ConsoleStack;
  let page: Page;
  const admin = bearer(ADMIN_KEY);
  const ids: Record<string, string> = {};

  const overflow = (): Promise<number> =>
    page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

  beforeAll(async () => {
    stack = await startConsoleStack();
    const http = stack.app.http;
    const tool = await request(http)
      .post('/api/v1/tools')
      .set(admin)
      .send({
        name: `lookup_${'long'.repeat(12)}`,
        description: `Looks up ${UNBROKEN}`,
        implementation_type: 'code',
        requires_approval: false,
        function_schema: {
          type: 'function',
          function: {
            name: `lookup_${'long'.repeat(12)}`,
            description: `Looks up ${UNBROKEN}`,
            parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
          },
        },
        implementation_config: { language: 'javascript', code: 'return { url: args.url, body: args.url };' },
      })
      .expect(201);
    ids.tool = (tool.body as { id: string }).id;
    const toolName = (tool.body as { name: string }).name;
    const approvalTool = await request(http)
      .post('/api/v1/tools')
      .set(admin)
      .send({
        name: 'send_long_mail',
        description: 'Sends a mail',
        implementation_type: 'code',
        effect: 'mutating',
        requires_approval: true,
        function_schema: {
          type: 'function',
          function: {
            name: 'send_long_mail',
            description: 'Sends a mail',
            parameters: { type: 'object', properties: { body: { type: 'string' } }, required: ['body'] },
          },
        },
        implementation_config: { language: 'javascript', code: 'return { sent: true };' },
      })
      .expect(201);
    expect(approvalTool.status).toBe(201);
    const workflow = await request(http)
      .post('/api/v1/workflows')
      .set(admin)
      .send(
        agentWorkflow({ enable_tools: true, tools: [toolName, 'send_long_mail'] }, { name: `phone-${'w'.repeat(60)}` }),
      )
      .expect(201);
    ids.workflow = (workflow.body as { id: string }).id;

    stack.llm.script([
      reply.toolCalls([{ name: toolName, arguments: { url: UNBROKEN } }]),
      reply.text(`Here it is: ${UNBROKEN}\n\n\`${UNBROKEN}\`\n\n\`\`\`\n${UNBROKEN}\n\`\`\``),
    ]);
    const done = await request(http)
      .post(`/api/v1/workflows/${ids.workflow}/runs?wait=true`)
      .set(admin)
      .send({ inputs: { question: `Look up ${UNBROKEN}` } });
    expect(done.status).toBeLessThan(300);
    ids.run = (done.body as { id: string }).id;

    stack.llm.script([reply.toolCalls([{ name: 'send_long_mail', arguments: { body: UNBROKEN } }])]);
    const waiting = await request(http)
      .post(`/api/v1/workflows/${ids.workflow}/runs`)
      .set(admin)
      .send({ inputs: { question: `Mail ${UNBROKEN}` } });
    ids.waiting = (waiting.body as { id: string }).id;
    await waitFor(
      async () =>
        ((await request(http).get(`/api/v1/runs/${ids.waiting}`).set(admin)).body as { status: string }).status ===
        'waiting',
      { what: 'the run to wait for its approval' },
    );

    ({ page } = await stack.newPage(PHONE));
  }, CONSOLE_STACK_TIMEOUT_MS);

  afterAll(async () => {
    await page?.context().close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  it('should fit the sign-in page', async () => {
    await page.goto(`${stack.url}/console/`);
    await visible(page.getByLabel('API key'));
    await settled(page);
    expect(await overflow()).toBe(0);
    await signIn(page, `${stack.url}/console/tools`, ADMIN_KEY);
  });

  const pages: Array<[string, () => string, (page: Page) => Promise<void>]> = [
    ['tools', () => 'tools', (p) => visible(p.getByText(/lookup_long/))],
    ['tool', () => `tools/${ids.tool}`, (p) => visible(p.getByTestId('tool-version'))],
    ['new tool', () => 'tools/new', (p) => visible(p.getByRole('heading', { name: 'New tool' }))],
    ['workflows', () => 'workflows', (p) => visible(p.getByText(/phone-www/))],
    ['workflow', () => `workflows/${ids.workflow}`, (p) => visible(p.locator('#workflow-json'))],
    ['new workflow', () => 'workflows/new', (p) => visible(p.locator('#workflow-json'))],
    ['runs', () => 'runs', (p) => visible(p.locator('td').getByText('succeeded'))],
    ['run', () => `runs/${ids.run}`, (p) => visible(p.getByTestId('answer'))],
    ['waiting run', () => `runs/${ids.waiting}`, (p) => visible(p.getByTestId('approval-card'))],
    ['approvals', () => 'approvals', (p) => visible(p.getByTestId('approval-card'))],
    ['MCP servers', () => 'mcp-servers', (p) => visible(p.getByRole('heading', { level: 1 }))],
    ['playground', () => 'playground', (p) => visible(p.getByLabel('Message'))],
    ['usage', () => 'usage', (p) => visible(p.getByTestId('usage-table').getByText('Total'))],
    ['quotas', () => 'quotas', (p) => visible(p.getByRole('heading', { name: 'Users with quotas' }))],
    [
      'quota form',
      () => 'quotas',
      async (p) => {
        await p.getByLabel('User id').fill(`team-${'long'.repeat(12)}`);
        await p.getByRole('button', { name: 'Open' }).click();
        await visible(p.getByTestId('quota-form'));
      },
    ],
    ['audit', () => 'audit', (p) => visible(p.locator('td').getByText(/lookup_long/))],
    ['not found', () => 'no-such-page', (p) => visible(p.getByRole('heading', { level: 1 }))],
  ];

  it.each(pages)('should fit the %s page', async (_name, path, ready) => {
    await page.goto(`${stack.url}/console/${path()}`);
    await ready(page);
    await settled(page);
    expect(await overflow()).toBe(0);
  });
});
