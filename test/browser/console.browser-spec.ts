import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import {
  CONSOLE_STACK_TIMEOUT_MS,
  seriousViolations,
  signIn,
  startConsoleStack,
  type ConsoleStack,
  visible,
} from '../support/console-browser';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
const weather = () =>
  JSON.parse(readFileSync(join(ROOT, 'examples', 'weather.json'), 'utf8')) as Record<string, unknown>;
/** `npm run screenshots` sets this: the same flows then write docs/screenshots/*.png. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

type Message = { role: string; content: string | null };

describe('console (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let url: string;

  const shot = async (name: string, target: Page = page) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    stack = await startConsoleStack();
    url = stack.url;
    ({ context, page, errors } = await stack.newPage());
    // A model-output alert() would mean the Markdown was not sanitised.
    page.on('dialog', (dialog) => {
      errors.push(`dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });
  }, CONSOLE_STACK_TIMEOUT_MS);

  afterEach(() => stack?.llm.reset());

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  it('should redirect / to the console and show the API error for a wrong key', async () => {
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.getByLabel('API key').fill('tf_wrong_key');
    await page.getByRole('button', { name: 'Sign in' }).click();

    await visible(page.getByRole('alert'));
    expect(await page.getByRole('alert').textContent()).toMatch(/API key/i);
    expect(await page.evaluate('sessionStorage.getItem("toolflow.apiKey")')).toBeNull();
    await shot('sign-in');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('should sign in, keep the key in sessionStorage and list the tools with filters', async () => {
    await signIn(page, `${url}/console/tools`, ADMIN_KEY);
    await visible(page.getByRole('link', { name: 'calculator' }));
    expect(await page.evaluate('sessionStorage.getItem("toolflow.apiKey")')).toBe(ADMIN_KEY);

    await page.getByLabel('Search tools').fill('calcul');
    await visible(page.getByRole('link', { name: 'calculator' }));
    await page.getByRole('link', { name: 'current_time' }).waitFor({ state: 'detached' });
    await page.getByLabel('Search tools').fill('');
    await visible(page.getByRole('link', { name: 'current_time' }));
    await shot('tools');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('should create a code tool with live schema checks and execute it', async () => {
    await page.getByRole('button', { name: 'New tool' }).click();
    await page.getByLabel('Name', { exact: true }).fill('add_numbers');
    await page.getByLabel('Description').fill('Adds two numbers');
    await page.getByRole('radio', { name: 'code' }).check({ force: true });

    const parameters = page.locator('#tool-parameters');
    await parameters.fill('{"type": "object", "propertes": {}}');
    await visible(page.getByText('function_schema.function.parameters.propertes'));
    expect(await page.getByText('did you mean "properties"?').count()).toBe(1);
    await parameters.fill(
      JSON.stringify({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
    );
    await visible(page.getByText('Schema looks valid.'));
    // Code tools have two languages now: the person picks one, nothing is chosen for them.
    await page
      .locator('.field', { has: page.locator('label[for="config-language"]') })
      .locator('.n-base-selection')
      .click();
    await page.locator('.n-base-select-option').getByText('javascript', { exact: true }).click();
    await page.locator('#config-code').fill('return args.a + args.b;');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/console\/tools\/[0-9a-f-]{36}$/);
    await shot('tool');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Execute' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('#arg-a').fill('2');
    await dialog.locator('#arg-b').fill('3');
    await dialog.getByRole('button', { name: 'Execute' }).click();
    const result = dialog.getByTestId('execute-result');
    await visible(result.getByText('success'));
    expect(await result.locator('pre').textContent()).toBe('5');
    expect(await result.textContent()).toMatch(/duration: \d+ ms/);
    await shot('tool-execute');

    await dialog.getByRole('switch', { name: 'Raw JSON arguments' }).click();
    await dialog.locator('#execute-raw').fill('{"a": 2}');
    await dialog.getByRole('button', { name: 'Execute' }).click();
    await visible(result.getByText('invalid_arguments'));
    expect(await result.locator('.field-errors').textContent()).toContain('b');
    await page.keyboard.press('Escape');

    await page.reload();
    await visible(page.getByRole('tab', { name: 'Call log' }));
    await visible(page.locator('td').getByText('invalid_arguments'));
    expect(await page.locator('td').getByText('success').count()).toBe(1);
  });

  it('should pin problems to their node, save the weather workflow and watch its run fill in live', async () => {
    const { llm, backend } = stack;
    await page.goto(`${url}/console/workflows/new`);
    const editor = page.locator('#workflow-json');
    const broken = weather();
    (broken.nodes as Array<{ id: string; data: Record<string, unknown> }>)[1].data.max_iterations = 'five';
    await editor.fill(JSON.stringify(broken, null, 2));
    // Live, against GET /workflows/schema: the graph node shows what is wrong with it.
    await visible(page.locator('[data-node="llm-1"]').getByTestId('node-problem'));
    expect(await page.locator('[data-node="llm-1"]').textContent()).toContain('max_iterations');

    const unknownTool = weather();
    (unknownTool.nodes as Array<{ data: Record<string, unknown> }>)[1].data.tools = ['http_requst'];
    await editor.fill(JSON.stringify(unknownTool, null, 2));
    await page.locator('[data-node="llm-1"]').getByTestId('node-problem').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save' }).click();
    // The API's 400 names nodes[1](llm-1): pinned there too.
    await visible(page.locator('[data-node="llm-1"]').getByTestId('node-problem'));
    expect(await page.locator('[data-node="llm-1"]').textContent()).toContain('http_requst');

    await editor.fill(JSON.stringify(weather(), null, 2));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/console\/workflows\/[0-9a-f-]{36}$/);
    await page.locator('[data-node="llm-1"]').click();
    await visible(page.getByRole('tab', { name: 'Tools' }));
    await page.getByRole('tab', { name: 'Tools' }).click();
    await visible(page.getByRole('checkbox', { name: /http_request/ }));
    expect(await page.getByRole('checkbox', { name: /http_request/ }).isChecked()).toBe(true);
    await shot('workflow');
    expect(await seriousViolations(page)).toEqual([]);

    let release: () => void = () => undefined;
    llm.script([
      reply.toolCalls([{ name: 'http_request', arguments: { url: `${backend.origin}/weather?city=Berlin` } }], {
        reasoning: 'The user wants the weather in Berlin; fetch it.',
      }),
      // The answer waits until the test has seen the tool card.
      reply.from(() => {
        release = llm.hold();
        return reply.text('**Berlin**: 21 °C, sunny. <img src=x onerror="alert(1)">');
      }),
    ]);
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('dialog').locator('#input-question').fill('Weather in Berlin?');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);

    const card = page.getByTestId('tool-card');
    await visible(card.getByText('success'));
    expect(await card.textContent()).toContain('/weather?city=Berlin');
    expect(await page.getByTestId('answer').count()).toBe(0);
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    release();

    const answer = page.getByTestId('answer');
    await visible(answer.locator('strong'));
    expect(await answer.locator('strong').textContent()).toBe('Berlin');
    expect(await answer.locator('img').count()).toBe(0);
    await visible(page.getByTestId('run-status').getByText('succeeded'));
    expect(await page.getByTestId('model-call').count()).toBe(2);
    await visible(page.getByText(/Reasoning \(/));
    await visible(page.getByRole('table', { name: /Timeline/ }).getByText('http_request'));
    await shot('run');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Runs' }).click();
    await visible(page.locator('td').getByText('succeeded'));
    await shot('runs');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('should hold a two-turn conversation in the playground, sending the first turn as history', async () => {
    const { llm } = stack;
    llm.script([reply.text('Hello! Ask me about the weather.'), reply.text('You asked about **Oslo**.')]);
    await page.goto(`${url}/console/playground`);
    const message = page.getByLabel('Message');
    await message.fill('Hi, I am planning a trip to Oslo.');
    await message.press('Enter');
    await visible(page.getByTestId('assistant-turn').getByText('Hello! Ask me about the weather.'));
    await message.fill('What did I ask about?');
    await page.getByRole('button', { name: 'Send' }).click();
    await visible(page.getByTestId('assistant-turn').nth(1).getByTestId('answer').locator('strong'));

    const second = (llm.requests[1].body.messages as Message[]).map(({ role, content }) => ({ role, content }));
    expect(second).toEqual([
      { role: 'user', content: 'Hi, I am planning a trip to Oslo.' },
      { role: 'assistant', content: 'Hello! Ask me about the weather.' },
      { role: 'user', content: 'What did I ask about?' },
    ]);
    await shot('playground');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('should serve deep links and pass the accessibility scan on every page', async () => {
    for (const path of ['tools', 'workflows', 'runs', 'mcp-servers', 'approvals', 'playground']) {
      await page.goto(`${url}/console/${path}`);
      await visible(page.getByRole('heading', { level: 1 }));
      expect({ path, violations: await seriousViolations(page) }).toEqual({ path, violations: [] });
    }
    await shot('workflows');
  });

  it('should fit a phone-width screen without sideways scrolling', async () => {
    const phone = await stack.newPage(390);
    try {
      await signIn(phone.page, `${url}/console/runs`, ADMIN_KEY);
      for (const path of ['tools', 'workflows', 'runs', 'mcp-servers', 'approvals', 'playground']) {
        await phone.page.goto(`${url}/console/${path}`);
        await visible(phone.page.getByRole('heading', { level: 1 }));
        const overflow = await phone.page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect({ path, overflow }).toEqual({ path, overflow: 0 });
      }
      await shot('phone-runs', phone.page);
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });

  it('should log no console errors on the way', () => {
    // Chromium logs every non-2xx fetch; the 401 (wrong key), 422 (invalid arguments) and 400 (unknown tool) were
    // provoked above.
    expect(errors.filter((error) => !/status of (400|401|422) /.test(error))).toEqual([]);
  });
});
