import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { consolePage, seriousViolations, type ConsoleStack, visible } from '../support/console-browser';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

/** 1000 prompt and 100 completion tokens a call; priced at $0.15 / $0.60 per million: $0.00021 a call. */
const USAGE = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };

describe('console usage, quotas and audit (browser)', () => {
  let stack: ConsoleStack;
  let page: Page;
  let errors: string[];
  let workflowId: string;
  let workflowName: string;
  const admin = bearer(ADMIN_KEY);
  const quotaBodies: unknown[] = [];
  const shot = async (name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  /** Picks `option` in the naive-ui select that shows `current`. */
  const choose = async (current: string, option: string) => {
    await page.locator('.n-base-selection').filter({ hasText: current }).click();
    await page.locator('.n-base-select-option').getByText(option, { exact: true }).click();
  };

  const pricesFile = join(mkdtempSync(join(tmpdir(), 'toolflow-prices-')), 'prices.json');
  writeFileSync(pricesFile, JSON.stringify({ 'test-model': { input: 0.15, output: 0.6 } }));
  const cleanUp = consolePage(
    {
      path: '/console/usage',
      env: { PRICES_FILE: pricesFile },
      // Two runs of the scripted model, priced: what the usage page charts.
      prepare: async (started) => {
        const workflow = await request(started.app.http)
          .post('/api/v1/workflows')
          .set(admin)
          .send(agentWorkflow({}))
          .expect(201);
        ({ id: workflowId, name: workflowName } = workflow.body as { id: string; name: string });
        for (const question of ['One?', 'Two?']) {
          started.llm.script([reply.text('Fine.', { usage: USAGE })]);
          await request(started.app.http)
            .post(`/api/v1/workflows/${workflowId}/runs?wait=true`)
            .set(admin)
            .send({ inputs: { question } })
            .expect(200);
        }
      },
    },
    (opened) => {
      ({ stack, page, errors } = opened);
      page.on('request', (sent) => {
        if (sent.method() === 'PUT' && sent.url().includes('/api/v1/quotas/')) quotaBodies.push(sent.postDataJSON());
      });
    },
  );

  afterEach(() => expect(errors.filter((error) => !error.includes('status of 4'))).toEqual([]));

  it('should chart the tokens, cost and runs of the runs made', async () => {
    await page.goto(`${stack.url}/console/usage`);
    const chart = page.getByTestId('usage-chart');
    const today = new Date().toISOString().slice(0, 10);
    await visible(chart.getByText(today));
    await expect(chart.locator('li').filter({ hasText: today }).textContent()).resolves.toContain('2,200');
    const totals = page.getByTestId('usage-table').locator('tfoot tr');
    await expect(totals.textContent()).resolves.toMatch(/Total\s*2\s*2\s*2,000\s*200\s*2,200\s*0\.00042 USD/);

    await choose('Tokens', 'Cost');
    await visible(chart.getByText('0.00042 USD'));
    await choose('By day', 'By workflow');
    // A workflow reads as its name, its id kept as the row's title.
    await visible(chart.getByText(workflowName, { exact: true }));
    await expect(
      page.getByTestId('usage-table').getByRole('rowheader', { name: workflowName }).getAttribute('title'),
    ).resolves.toBe(workflowId);
    await choose('By workflow', 'By model');
    await visible(chart.getByText(/test-model/));
    await shot('usage');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('should show a refused quota value at its field, then refuse a run past the saved quota', async () => {
    await page.goto(`${stack.url}/console/quotas`);
    cleanUp.push(async () => {
      await request(stack.app.http).put('/api/v1/quotas/admin').set(admin).send({}).expect(200);
    });
    await page.getByLabel('User id').fill('admin');
    await page.getByRole('button', { name: 'Open' }).click();
    const runsPerDay = page.getByLabel('Runs per day');
    await runsPerDay.fill('-1');
    await page.getByRole('button', { name: 'Save quotas' }).click();
    await visible(page.locator('#quota-runs_per_day-problem'));
    expect(await runsPerDay.inputValue()).toBe('-1');
    expect(quotaBodies).toEqual([{ runs_per_day: -1 }]);
    expect(await seriousViolations(page)).toEqual([]);

    await runsPerDay.fill('2');
    await page.getByRole('button', { name: 'Save quotas' }).click();
    await visible(page.getByTestId('quota-states').first().getByText('used up, new runs are refused'));
    expect(quotaBodies).toEqual([{ runs_per_day: -1 }, { runs_per_day: 2 }]);

    await page.goto(`${stack.url}/console/workflows/${workflowId}`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('dialog').locator('#input-question').fill('Three?');
    await page.getByRole('button', { name: 'Start run' }).click();
    const refusal = page.getByRole('dialog').getByRole('alert');
    await visible(refusal);
    await shot('quota-refused');
    expect(await refusal.textContent()).toMatch(
      /429.*Quota runs_per_day of user "admin" is used up \(2 of 2 per day\)/,
    );
  });

  it('should list a tool change with its versions before and after', async () => {
    const tool = await request(stack.app.http)
      .post('/api/v1/tools')
      .set(admin)
      .send({
        name: 'audited_echo',
        description: 'Echoes',
        implementation_type: 'code',
        function_schema: {
          type: 'function',
          function: { name: 'audited_echo', description: 'Echoes', parameters: { type: 'object', properties: {} } },
        },
        implementation_config: { language: 'javascript', code: 'return args;' },
      })
      .expect(201);
    await request(stack.app.http)
      .patch(`/api/v1/tools/${(tool.body as { id: string }).id}`)
      .set(admin)
      .send({ description: 'Echoes back' })
      .expect(200);

    await page.goto(`${stack.url}/console/audit`);
    await choose('Any object', 'tool');
    const update = page.getByRole('row').filter({ hasText: 'audited_echo' }).filter({ hasText: 'update' });
    await visible(update);
    expect(await update.textContent()).toContain('v1 → v2');
    await visible(page.getByRole('row').filter({ hasText: 'audited_echo' }).filter({ hasText: 'create' }));
    expect(page.url()).toContain('object_type=tool');
    await shot('audit');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
