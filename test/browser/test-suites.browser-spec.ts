import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { consolePage, type ConsoleStack, visible } from '../support/console-browser';
import { reply, type RecordedRequest } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

const question = (recorded: RecordedRequest): string =>
  String((recorded.body.messages as Array<{ content: string }>).at(-1)?.content);

describe('console test suites (browser)', () => {
  let stack: ConsoleStack;
  let page: Page;
  let errors: string[];
  const admin = bearer(ADMIN_KEY);
  // The scripted model priced like gpt-4o-mini, so test runs have a cost to show.
  const pricesFile = join(mkdtempSync(join(tmpdir(), 'toolflow-prices-')), 'prices.json');
  writeFileSync(pricesFile, JSON.stringify({ 'test-model': { input: 0.15, output: 0.6 } }));
  consolePage(
    { path: '/console/workflows', env: { PRICES_FILE: pricesFile } },
    (opened) => ({ stack, page, errors } = opened),
  );

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
    // The model waits: the test run is shown running, with its progress, until the cases end.
    const release = stack.llm.hold();
    await page.getByRole('button', { name: 'Run suite' }).click();
    await visible(page.getByTestId('test-run-progress').getByText('0 of 2 cases done'));
    release();

    const failing = page.getByRole('row').filter({ hasText: 'rome' });
    await visible(failing.getByText('text_contains: does not contain "Roma" (actual "Answer: rome")'));
    await visible(page.getByText('1 passed, 1 failed'));
    await failing.getByRole('link', { name: 'trace of rome' }).click();

    await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    await visible(page.getByText('Answer: rome'));
    expect(errors).toEqual([]);
  });

  it('should show what each case and the test run cost, and the cost delta against the previous test run', async () => {
    const workflow = (
      await request(stack.app.http).post('/api/v1/workflows').set(admin).send(agentWorkflow({})).expect(201)
    ).body as { id: string };
    await request(stack.app.http)
      .put(`/api/v1/workflows/${workflow.id}/tests`)
      .set(admin)
      .send({
        cases: ['oslo', 'rome', 'lima'].map((city) => ({
          name: city,
          inputs: { question: city },
          assertions: [{ type: 'text_contains', value: city === 'rome' ? 'Roma' : city }],
        })),
      })
      .expect(200);
    const echo = (fixed: boolean) =>
      reply.from((recorded) => reply.text(`Answer: ${question(recorded).replace('rome', fixed ? 'Roma' : 'rome')}`));
    stack.llm.script([echo(false), echo(false), echo(false)]);
    await request(stack.app.http).post(`/api/v1/workflows/${workflow.id}/test-runs`).set(admin).send({}).expect(201);

    stack.llm.script([echo(true), echo(true), echo(true)]);
    await page.goto(`${stack.url}/console/workflows/${workflow.id}/tests`);
    await visible(page.getByText('3 case(s) in the suite.'));
    await page.getByRole('button', { name: 'Run suite' }).click();

    await visible(page.getByText('3 passed, 0 failed'));
    expect(await page.getByTestId('test-run-cost').textContent()).toMatch(/^\d+(\.\d+)?(e-\d+)? USD$/);
    const comparison = page.getByTestId('comparison');
    await visible(comparison);
    expect(await comparison.textContent()).toMatch(/newly passing rome, .*cost [+-]?\d+(\.\d+)?(e-\d+)? USD\./);
    const rome = page.getByRole('row').filter({ hasText: 'rome' });
    expect(await rome.textContent()).toMatch(/\d+(\.\d+)?(e-\d+)? USD/);
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'tests-cost.png'), fullPage: true });
    }
    expect(errors).toEqual([]);
  });
});
