import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reply, type RecordedRequest } from '../support/openai-test-server';
import { ADMIN_KEY } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';
import { pingStackFixture } from '../support/workflow-stack';

const ROOT = join(__dirname, '..', '..');
const CLI_TIMEOUT_MS = 240_000;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `toolflow <args>` from the sources (the bin runs the same file built), in a process of its own. */
const toolflow = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '-r', '@swc-node/register', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NODE_ENV: 'test', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });

const question = (request: RecordedRequest): string =>
  String((request.body.messages as Array<{ role: string; content: string }>).at(-1)?.content);

describe('toolflow test (CLI, e2e)', () => {
  const stack = pingStackFixture();
  let dir: string;
  let url: string;
  const workflow = agentWorkflow({}, { name: 'cli-echo' });
  const caseLine = (expected: string) =>
    JSON.stringify({
      name: 'berlin',
      inputs: { question: 'Weather in Berlin?' },
      assertions: [{ type: 'text_contains', value: expected }],
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolflow-cli-e2e-'));
    writeFileSync(join(dir, 'workflow.json'), JSON.stringify(workflow));
    const server = stack.app.http as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'should exit 1 on a failing case and 0 after the fix against a running service, writing JUnit XML',
    async () => {
      const echo = () => reply.from((request) => reply.text(`Answer: ${question(request)}`));
      stack.llm.script([echo(), echo()]);
      const cases = join(dir, 'url-cases.jsonl');
      const junit = join(dir, 'url-junit.xml');
      const args = ['test', join(dir, 'workflow.json'), '--cases', cases, '--url', url, '--key', ADMIN_KEY];

      writeFileSync(cases, `${caseLine('Answer: Paris')}\n`);
      const failing = await toolflow([...args, '--junit', junit]);
      expect(failing).toMatchObject({ code: 1 });
      expect(failing.stdout).toMatch(/FAIL\s+berlin/);
      expect(failing.stdout).toContain('0 passed, 1 failed of 1 cases');
      expect(readFileSync(junit, 'utf8')).toContain('<failure message="text_contains: does not contain');
      expect(readFileSync(junit, 'utf8')).toContain('<property name="cost" value=');

      writeFileSync(cases, `${caseLine('Answer: Weather in Berlin?')}\n`);
      const fixed = await toolflow([...args, '--junit', junit]);
      expect(fixed).toMatchObject({ code: 0 });
      expect(fixed.stdout).toMatch(/PASS\s+berlin/);
      expect(readFileSync(junit, 'utf8')).toContain('failures="0"');
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'should run embedded on SQLite from a cassette with no model reachable: exit 1, then 0 after the fix',
    async () => {
      // The recording: the same workflow run once against the scripted model of the running service.
      stack.llm.script([reply.text('It is 21 °C in Berlin.')]);
      const created = await stack.api.post('/workflows', workflow);
      if (created.status === 409) await stack.api.put(`/workflows/${workflow.name}`, workflow).expect(200);
      else expect(created.status).toBe(201);
      const run = await stack.api
        .post(`/workflows/${workflow.name}/runs?wait=true`, { inputs: { question: 'Weather in Berlin?' } })
        .expect(200);
      const cassette = await stack.api.get(`/runs/${(run.body as { id: string }).id}/cassette`).expect(200);
      const cassettes = join(dir, 'cassettes');
      mkdirSync(cassettes, { recursive: true });
      writeFileSync(join(cassettes, 'berlin.json'), JSON.stringify(cassette.body));
      const cases = join(dir, 'embedded-cases.jsonl');
      const junit = join(dir, 'embedded-junit.xml');
      const args = ['test', join(dir, 'workflow.json'), '--cases', cases, '--replay', cassettes, '--junit', junit];
      // Nothing listens there: a model call would fail the case. The recorded usage (10 + 5 tokens) is priced.
      const prices = join(dir, 'prices.json');
      writeFileSync(prices, JSON.stringify({ 'test-model': { input: 1, output: 2 } }));
      const offline = {
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_DEFAULT_MODEL: 'test-model',
        PRICES_FILE: prices,
      };
      const modelCalls = stack.llm.requests.length;

      writeFileSync(cases, `${caseLine('sunny')}\n`);
      const failing = await toolflow(args, offline);
      expect(failing).toMatchObject({ code: 1 });
      expect(failing.stdout).toMatch(/FAIL\s+berlin\s+0\/1\s+15\s+0\.00002 USD\s+\d+\s+replay/);
      expect(failing.stdout).toContain('0 passed, 1 failed of 1 cases, 15 tokens, cost 0.00002 USD');
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toContain('<failure');
      expect(xml).toMatch(/name="berlin"[^>]*>\s*<properties>\s*<property name="cost" value="0.00002 USD"\/>/);

      writeFileSync(cases, `${caseLine('21 °C')}\n`);
      const fixed = await toolflow(args, offline);
      expect(fixed.stderr).toBe('');
      expect(fixed).toMatchObject({ code: 0 });
      expect(fixed.stdout).toContain('1 passed, 0 failed of 1 cases');
      expect(stack.llm.requests.length).toBe(modelCalls);
    },
    CLI_TIMEOUT_MS,
  );

  it('should exit 2 with the usage on a wrong command', async () => {
    const result = await toolflow(['test', join(dir, 'workflow.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--cases is required');
    expect(result.stderr).toContain('usage: toolflow test');
  });
});
