import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../shared/error-text';
import { isRecord } from '../shared/is-record';
import { sleep } from '../shared/sleep';
import type { TestCommand } from './cli-args';
import { exitCodeOf, formatJunit, formatTable, type TestRunReport } from './report';

/** A ToolFlow the command talks to: its base URL (no trailing slash) and an API key. */
export interface Service {
  url: string;
  key: string;
}

/** Whatever the command prints; tests collect it. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export class ServiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceError';
  }
}

async function call(
  service: Service,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${service.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    // Not JSON: kept as text for the message.
  }
  return { status: response.status, body: parsed };
}

const problemOf = (body: unknown): string => {
  if (!isRecord(body)) return String(body);
  const errors = Array.isArray(body.errors)
    ? body.errors.map((error) => (isRecord(error) ? `${String(error.field)}: ${String(error.message)}` : String(error)))
    : [];
  const detail =
    typeof body.detail === 'string' ? body.detail : typeof body.title === 'string' ? body.title : 'request failed';
  return [detail, ...errors].join('; ');
};

async function expectOk(
  service: Service,
  method: string,
  path: string,
  body: unknown,
  ok: readonly number[],
): Promise<unknown> {
  const response = await call(service, method, path, body);
  if (!ok.includes(response.status)) {
    throw new ServiceError(`${method} ${path} answered ${response.status}: ${problemOf(response.body)}`);
  }
  return response.body;
}

const readJson = (file: string, what: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new ServiceError(`cannot read the ${what} ${file}: ${errorMessage(error)}`);
  }
};

/**
 * The workflow of the file on the service, created or replaced by its name: a definition (with `nodes`, or as
 * `{definition}`), or a bundle (`GET /export`) whose tools and workflows are imported, its first workflow tested.
 */
async function saveWorkflow(service: Service, file: string): Promise<{ id: string; name: string }> {
  const content = readJson(file, 'workflow file');
  if (isRecord(content) && Array.isArray(content.workflows)) {
    await expectOk(service, 'POST', '/import', content, [200]);
    const first = content.workflows[0] as { name?: unknown; definition?: { name?: unknown } } | undefined;
    const name = first?.name ?? first?.definition?.name;
    if (typeof name !== 'string') throw new ServiceError(`the bundle ${file} has no workflow`);
    return (await expectOk(service, 'GET', `/workflows/${encodeURIComponent(name)}`, undefined, [200])) as {
      id: string;
      name: string;
    };
  }
  const definition = isRecord(content) && isRecord(content.definition) ? content.definition : content;
  const name = isRecord(definition) ? definition.name : undefined;
  if (typeof name !== 'string') throw new ServiceError(`the workflow file ${file} has no "name"`);
  const created = await call(service, 'POST', '/workflows', content);
  if (created.status === 201) return created.body as { id: string; name: string };
  if (created.status !== 409)
    throw new ServiceError(`POST /workflows answered ${created.status}: ${problemOf(created.body)}`);
  return (await expectOk(service, 'PUT', `/workflows/${encodeURIComponent(name)}`, content, [200])) as {
    id: string;
    name: string;
  };
}

/** The cases of the JSONL file, each with its cassette `<dir>/<name>.json` when `replayDir` has one. */
function readCases(command: TestCommand): unknown[] {
  let text: string;
  try {
    text = readFileSync(command.casesFile, 'utf8');
  } catch (error) {
    throw new ServiceError(`cannot read the cases file ${command.casesFile}: ${errorMessage(error)}`);
  }
  return text
    .split(/\r?\n/)
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
    .map(({ line, number }) => {
      let testCase: unknown;
      try {
        testCase = JSON.parse(line);
      } catch (error) {
        throw new ServiceError(`${command.casesFile}:${number} is not JSON: ${errorMessage(error)}`);
      }
      if (!isRecord(testCase) || command.replayDir === undefined || typeof testCase.name !== 'string') return testCase;
      const cassette = join(command.replayDir, `${testCase.name}.json`);
      return existsSync(cassette) ? { ...testCase, cassette: readJson(cassette, 'cassette') } : testCase;
    });
}

const POLL_MS = 500;

/** The test run once every case has ended, read again every POLL_MS while it is `running`. */
async function untilEnded(service: Service, workflowId: string, testRun: TestRunReport): Promise<TestRunReport> {
  let current = testRun;
  while (current.status === 'running') {
    await sleep(POLL_MS);
    const path = `/workflows/${workflowId}/test-runs/${current.id}`;
    current = (await expectOk(service, 'GET', path, undefined, [200])) as TestRunReport;
  }
  return current;
}

/**
 * `toolflow test`: saves the workflow and its cases as the workflow's suite on the service, runs it, prints a
 * table (and writes JUnit XML when asked). Resolves to the exit code: 0 all cases passed, 1 one failed.
 */
export async function runTestCommand(command: TestCommand, service: Service, output: Output): Promise<number> {
  const workflow = await saveWorkflow(service, command.workflowFile);
  const cases = readCases(command);
  await expectOk(service, 'PUT', `/workflows/${workflow.id}/tests`, { cases }, [200]);
  const started = (await expectOk(
    service,
    'POST',
    `/workflows/${workflow.id}/test-runs?wait=false`,
    {},
    [202],
  )) as TestRunReport;
  const report = await untilEnded(service, workflow.id, started);
  // The cases' names: those an interrupted test run never ended are listed by name.
  const names = cases.flatMap((testCase) =>
    isRecord(testCase) && typeof testCase.name === 'string' ? [testCase.name] : [],
  );
  output.out(formatTable(report, names));
  if (command.junitFile !== undefined) writeFileSync(command.junitFile, formatJunit(report, workflow.name, names));
  return exitCodeOf(report);
}
