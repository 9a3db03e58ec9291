import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import {
  CONSOLE_STACK_TIMEOUT_MS,
  signIn,
  startConsoleStack,
  type ConsoleStack,
  visible,
} from '../support/console-browser';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { httpToolBody } from '../support/workflow-fixtures';

const TOOL_COUNT = 230;
const SHOWN = 200;

describe('LLM node tool picker past 200 matches (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  const api = () => request(stack.app.http);

  beforeAll(async () => {
    stack = await startConsoleStack();
    const names = Array.from({ length: TOOL_COUNT }, (_, index) => `picker_${String(index).padStart(3, '0')}`);
    for (let start = 0; start < names.length; start += 10) {
      await Promise.all(
        names.slice(start, start + 10).map((name, offset) => {
          const body = httpToolBody(name, 'https://api.example.com/items?id={id}');
          // Two of them (050, 150) are found by their description only.
          if ((start + offset) % 100 === 50) {
            const schema = body.function_schema as { function: Record<string, unknown> };
            body.description = 'Reads the tide gauge';
            schema.function.description = 'Reads the tide gauge';
          }
          return api().post('/api/v1/tools').set(bearer(ADMIN_KEY)).send(body).expect(201);
        }),
      );
    }
    await api().patch('/api/v1/tools/picker_007').set(bearer(ADMIN_KEY)).send({ enabled: false }).expect(200);
    ({ context, page, errors } = await stack.newPage());
    await signIn(page, `${stack.url}/console/workflows/new`, ADMIN_KEY);
  }, CONSOLE_STACK_TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  it('should list every enabled tool, show 200 of more matches with the count, and narrow them with the filter', async () => {
    const enabled = await api().get('/api/v1/tools?enabled=true&page_size=1').set(bearer(ADMIN_KEY)).expect(200);
    const total = (enabled.body as { total: number }).total;
    expect(total).toBeGreaterThan(TOOL_COUNT);

    await page.goto(`${stack.url}/console/workflows/new`);
    await page.locator('[data-node="llm-1"]').click();
    const panel = page.getByRole('region', { name: 'Node llm-1' });
    await panel.getByRole('tab', { name: 'Tools' }).click();
    const rows = panel.locator('.tool');
    const count = panel.locator('.count');

    // Unfiltered: every enabled tool counts, the first 200 are listed.
    await visible(count.getByText(`showing ${SHOWN} of ${total} tools; type to narrow`));
    expect(await rows.count()).toBe(SHOWN);
    expect(await panel.locator('.tool', { hasText: 'picker_229' }).count()).toBe(0);

    // Still more than 200 matches: still 200 listed, and the count says of how many.
    await panel.getByLabel('Filter tools').fill('picker_');
    await visible(count.getByText(`showing ${SHOWN} of ${TOOL_COUNT - 1} tools; type to narrow`));
    expect(await rows.count()).toBe(SHOWN);

    // Narrowed below 200: every match is listed and the note is gone.
    await panel.getByLabel('Filter tools').fill('picker_22');
    await visible(panel.locator('.tool', { hasText: 'picker_229' }));
    expect(await rows.count()).toBe(10);
    expect(await count.textContent()).not.toContain('showing');

    // By description, and never a disabled tool.
    await panel.getByLabel('Filter tools').fill('tide gauge');
    await visible(panel.locator('.tool', { hasText: 'picker_150' }));
    expect(await rows.count()).toBe(2);
    expect(await rows.allTextContents()).toEqual([
      expect.stringContaining('picker_050'),
      expect.stringContaining('picker_150'),
    ]);
    await panel.getByLabel('Filter tools').fill('picker_007');
    await panel.locator('.tool').first().waitFor({ state: 'detached' });

    // A tool past the first 200 can be picked through the filter and is saved.
    await panel.getByLabel('Filter tools').fill('picker_229');
    await panel.locator('.tool', { hasText: 'picker_229' }).locator('.n-checkbox').click();
    await panel.getByLabel('Filter tools').fill('');
    await visible(count.getByText('2 selected by name'));
    // Unfiltered again: the selected tools come first, so the one past the first 200 stays in sight.
    await visible(panel.locator('.tool', { hasText: 'picker_229' }));
    expect(await rows.count()).toBe(SHOWN);
    const firstTwo = (await rows.allTextContents()).slice(0, 2).join(' ');
    expect(firstTwo).toContain('picker_229');
    await page.waitForFunction("document.querySelector('#workflow-json').value.includes('\"picker_229\"')");
    expect(errors).toEqual([]);
  });
});
