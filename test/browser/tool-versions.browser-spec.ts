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
import { ADMIN_KEY, bearer } from '../support/test-app';

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;
const SECRET = 'sk-versioned-secret-123';

describe('console tool versions (browser)', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  const shot = async (name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    stack = await startConsoleStack();
    ({ context, page, errors } = await stack.newPage());
  }, CONSOLE_STACK_TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
    await stack?.close();
  }, CONSOLE_STACK_TIMEOUT_MS);

  it('should list three versions after two edits, diff them with secrets masked, and roll back to the first', async () => {
    const created = await request(stack.app.http)
      .post('/api/v1/tools')
      .set(bearer(ADMIN_KEY))
      .send({
        name: 'versioned_weather',
        description: 'Weather for a city',
        implementation_type: 'http',
        function_schema: {
          type: 'function',
          function: {
            name: 'versioned_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
        implementation_config: {
          url: 'https://api.example.com/weather?city={city}',
          auth: { type: 'bearer', token: SECRET },
        },
      })
      .expect(201);
    const id = (created.body as { id: string }).id;

    await signIn(page, `${stack.url}/console/tools/versioned_weather`, ADMIN_KEY);
    await visible(page.getByTestId('tool-version').getByText('v1'));

    // Edit 1: a new parameter in the schema.
    await page.locator('#tool-parameters').fill(
      JSON.stringify({
        type: 'object',
        properties: { city: { type: 'string' }, units: { type: 'string', enum: ['metric', 'imperial'] } },
        required: ['city'],
      }),
    );
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await visible(page.getByTestId('tool-version').getByText('v2'));
    // Edit 2: the description, and calls now wait for a person's approval.
    await page.getByLabel('Description').fill('Weather for a city, in metric or imperial units');
    await page.getByRole('switch', { name: 'Requires approval' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await visible(page.getByTestId('tool-version').getByText('v3'));
    const saved = await request(stack.app.http).get(`/api/v1/tools/${id}`).set(bearer(ADMIN_KEY)).expect(200);
    expect((saved.body as { requires_approval: boolean }).requires_approval).toBe(true);

    await page.getByRole('tab', { name: 'Versions' }).click();
    const list = page.getByTestId('version-list');
    await visible(list.getByText('current'));
    expect(await list.locator('tbody tr').count()).toBe(3);
    expect(await list.locator('tbody tr').first().textContent()).toContain('v3');

    // By default the newest two: the description (also in the function schema) and the approval switch.
    const changed = page.getByTestId('changed-fields');
    await visible(changed.getByText('Changed from v2 to v3'));
    expect(await changed.locator('code').allTextContents()).toEqual([
      'description',
      'requires_approval',
      'function_schema',
    ]);
    expect(await list.locator('tbody tr').first().textContent()).toContain('required');

    await page.getByRole('button', { name: 'Compare v1' }).click();
    await visible(changed.getByText('Changed from v1 to v3'));
    const diff = page.getByTestId('version-diff');
    await visible(diff.locator('.added').getByText('"units"'));
    expect(await diff.locator('.removed').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('"description": "Weather for a city"')]),
    );
    // The token is shown as the API masks it, never in clear.
    await page.getByLabel('To version', { exact: true }).selectOption('2');
    await visible(changed.getByText('Changed from v1 to v2'));
    expect(await changed.locator('code').allTextContents()).toEqual(['function_schema']);
    expect(await page.content()).not.toContain(SECRET);
    await shot('tool-versions');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    const confirm = page.getByRole('dialog');
    await visible(confirm.getByText('new version 4'));
    await confirm.getByRole('button', { name: 'Roll back' }).click();
    await visible(page.getByTestId('tool-version').getByText('v4'));
    expect(await page.locator('#tool-parameters').inputValue()).not.toContain('units');
    // The list reloads after the label changes: wait for its fourth row rather than count at once.
    await visible(list.locator('tbody tr').nth(3));
    expect(await list.locator('tbody tr').count()).toBe(4);

    const tool = await request(stack.app.http).get(`/api/v1/tools/${id}`).set(bearer(ADMIN_KEY)).expect(200);
    const body = tool.body as {
      version: number;
      requires_approval: boolean;
      description: string;
      function_schema: { function: { parameters: { properties: Record<string, unknown> } } };
    };
    expect(body.version).toBe(4);
    expect(body.description).toBe('Weather for a city');
    expect(body.requires_approval).toBe(false);
    expect(Object.keys(body.function_schema.function.parameters.properties)).toEqual(['city']);
    expect(errors).toEqual([]);
  });
});
