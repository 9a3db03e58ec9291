import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { consolePage, seriousViolations, type ConsoleStack, visible } from '../support/console-browser';
import { McpTestServer, type McpTestTool } from '../support/mcp-test-server';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;
const SECRET = 'Bearer mcp-secret-4711';

const textTool = (name: string, text: string): McpTestTool => ({
  tool: { name, description: `Says ${text}`, inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
  call: () => ({ content: [{ type: 'text', text }] }),
});

describe('console forms (browser)', () => {
  let stack: ConsoleStack;
  let mcp: McpTestServer;
  let page: Page;
  let errors: string[];

  const shot = async (name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  /** Picks `option` in the naive-ui select of the SchemaForm field with this id. */
  const choose = async (fieldId: string, option: string) => {
    await page
      .locator('.field', { has: page.locator(`label[for="${fieldId}"]`) })
      .locator('.n-base-selection')
      .click();
    await page.locator('.n-base-select-option').getByText(option, { exact: true }).click();
  };

  const cleanUp = consolePage(
    {
      path: '/console/mcp-servers',
      prepare: async () => {
        mcp = await McpTestServer.start([textTool('lookup', 'found')]);
      },
    },
    (opened) => ({ stack, page, errors } = opened),
  );
  /** Saves the new workflow on the page and reads the node's data back through the API. */
  const saveAndReadNode = async (nodeId: string): Promise<Record<string, unknown> | undefined> => {
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/console\/workflows\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').at(-1) as string;
    const stored = await request(stack.app.http).get(`/api/v1/workflows/${id}`).set(bearer(ADMIN_KEY)).expect(200);
    const { nodes } = (stored.body as { definition: { nodes: Array<{ id: string; data: Record<string, unknown> }> } })
      .definition;
    return nodes.find((node) => node.id === nodeId)?.data;
  };

  afterAll(async () => {
    await mcp?.close();
  });

  it('should add an MCP server with masked headers, sync it and delete it', async () => {
    await page.goto(`${stack.url}/console/mcp-servers`);
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByLabel('Name', { exact: true }).fill('remote');
    // No URL for an http server: the API's 400 names the field.
    await page.getByRole('button', { name: 'Connect and import' }).click();
    await visible(page.getByRole('alert').getByText(/url/));

    await page.getByLabel('URL').fill(mcp.url);
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Headers name 1').fill('Authorization');
    await page.getByLabel('Headers value 1').fill(SECRET);
    expect(await page.getByLabel('Headers value 1').getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Headers name 2').fill('X-Team');
    await page.getByLabel('Headers value 2').fill('blue');
    await page.getByRole('button', { name: 'Connect and import' }).click();

    const outcome = page.getByTestId('mcp-outcome');
    await visible(outcome.getByText('Added remote: 1 tools'));
    await visible(outcome.getByRole('link', { name: 'remote__lookup' }));
    const pairs = page.getByTestId('server-pairs');
    await visible(pairs);
    expect(await pairs.textContent()).toBe('Authorization: ********\nX-Team: blue');
    expect(await page.content()).not.toContain('mcp-secret-4711');
    // The server got the real header.
    expect(mcp.requests.some((entry) => entry.headers.authorization === SECRET)).toBe(true);
    await shot('mcp-servers');
    expect(await seriousViolations(page)).toEqual([]);

    mcp.tools = [textTool('lookup', 'found'), textTool('second', 'two')];
    await page.getByRole('button', { name: 'Sync remote' }).click();
    await visible(outcome.getByText('Synced remote: 2 tools'));
    expect(await outcome.textContent()).toContain('added: remote__second');

    await page.getByRole('button', { name: 'Delete remote' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await pairs.waitFor({ state: 'detached' });
    await request(stack.app.http).get('/api/v1/tools/remote__lookup').set(bearer(ADMIN_KEY)).expect(404);
  });

  it("should edit the LLM node's tool selection, result limit and summary, and reasoning effort in the form and save them", async () => {
    await page.goto(`${stack.url}/console/workflows/new`);
    await page.locator('[data-node="llm-1"]').click();
    const panel = page.getByRole('region', { name: 'Node llm-1' });
    await panel.getByRole('tab', { name: 'Model' }).click();
    await choose('llm-1-Model-reasoning_effort', 'high');
    await panel.getByRole('tab', { name: 'Limits' }).click();
    await page.locator('#llm-1-Limits-max_tool_result_tokens').fill('2000');
    await page.locator('#llm-1-Limits-max_tool_result_tokens').blur();
    await panel.getByRole('switch', { name: 'summarize_results' }).click();
    await panel.getByRole('tab', { name: 'Tools' }).click();
    await page.locator('#llm-1-selection-tool_selection-max_tools').fill('4');
    await page.locator('#llm-1-selection-tool_selection-max_tools').blur();
    await page.locator('#llm-1-selection-tool_selection-always').fill('["calculator"]');

    // The form writes into the definition's JSON, which the live check accepts.
    await page.waitForFunction(
      "document.querySelector('#workflow-json').value.includes('\"max_tool_result_tokens\": 2000')",
    );
    const json = await page.locator('#workflow-json').inputValue();
    expect(json).toContain('"reasoning_effort": "high"');
    await shot('workflow-llm-node');
    expect(await seriousViolations(page)).toEqual([]);

    const llm = await saveAndReadNode('llm-1');
    expect(llm).toMatchObject({
      reasoning_effort: 'high',
      max_tool_result_tokens: 2000,
      summarize_results: true,
      tool_selection: { max_tools: 4, always: ['calculator'] },
    });
  });

  it('should offer every enabled tool in the picker, past the first page, with "*" and category selectors', async () => {
    const names = Array.from({ length: 101 }, (_, index) => `bulk_${String(index).padStart(3, '0')}`);
    for (const name of names) {
      await request(stack.app.http)
        .post('/api/v1/tools')
        .set(bearer(ADMIN_KEY))
        .send({ ...httpToolBody(name, 'https://api.example.com/items?id={id}'), category: 'bulk' })
        .expect(201);
    }
    // The other tests' lists stay as they were.
    cleanUp.push(async () => {
      for (const name of names) await request(stack.app.http).delete(`/api/v1/tools/${name}`).set(bearer(ADMIN_KEY));
    });
    await page.goto(`${stack.url}/console/workflows/new`);
    // Another test saves the default name.
    const json = page.locator('#workflow-json');
    await json.fill((await json.inputValue()).replace('"my-workflow"', '"picker-workflow"'));
    await page.locator('[data-node="llm-1"]').click();
    const panel = page.getByRole('region', { name: 'Node llm-1' });
    await panel.getByRole('tab', { name: 'Tools' }).click();
    await panel.getByLabel('Filter tools').fill('bulk_');
    // 101 of them: the picker read past the API's 100-item page.
    await visible(panel.locator('.tool', { hasText: 'bulk_100' }));
    expect(await panel.locator('.tool').count()).toBe(101);

    await panel.locator('.tool', { hasText: 'bulk_042' }).locator('.n-checkbox').click();
    await panel.locator('.category-add .n-base-selection').click();
    await page.locator('.n-base-select-option').getByText('bulk', { exact: true }).click();
    await panel.getByRole('button', { name: 'Add category' }).click();
    await visible(panel.getByRole('list', { name: 'Categories offered' }).getByText('bulk'));
    await panel.locator('.selectors > .n-checkbox').click();

    const llm = await saveAndReadNode('llm-1');
    // calculator comes with a new workflow.
    expect(llm?.tools).toEqual(['calculator', 'bulk_042', { category: 'bulk' }, '*']);
  });

  it("should show a run's budgets on its page", async () => {
    stack.llm.script([reply.text('Short answer.')]);
    const started = await request(stack.app.http)
      .post('/api/v1/workflow-runs?wait=true')
      .set(bearer(ADMIN_KEY))
      .send({
        definition: agentWorkflow({}),
        inputs: { question: 'Anything?' },
        max_total_tokens: 5000,
        max_tool_calls: 3,
      });
    expect(started.status).toBeLessThan(300);
    const run = started.body as { id: string; usage: { total_tokens: number } };
    await page.goto(`${stack.url}/console/runs/${run.id}`);
    await visible(page.getByTestId('run-status').getByText('succeeded'));
    expect(await page.getByTestId('run-budgets').textContent()).toContain(
      `Run budgets: ${run.usage.total_tokens} of 5000 tokens · at most 3 tool calls`,
    );
  });

  it('should keep list filters in the query string across a reload and clear them from the menu', async () => {
    await page.goto(`${stack.url}/console/tools`);
    await page.getByLabel('Search tools').fill('calcul');
    await page.waitForURL(/\/console\/tools\?q=calcul$/);
    await page.reload();
    await visible(page.getByRole('link', { name: 'calculator' }));
    expect(await page.getByLabel('Search tools').inputValue()).toBe('calcul');
    expect(await page.getByRole('link', { name: 'current_time' }).count()).toBe(0);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tools' }).click();
    await visible(page.getByRole('link', { name: 'current_time' }));
    expect(await page.getByLabel('Search tools').inputValue()).toBe('');

    await page.goto(`${stack.url}/console/runs?status=failed`);
    await visible(page.getByRole('heading', { name: 'Runs' }));
    await visible(page.locator('.n-base-selection').getByText('failed'));
    expect(errors.filter((error) => !/status of 400 /.test(error))).toEqual([]);
  });
});
