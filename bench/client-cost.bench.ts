import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface, type Interface } from 'node:readline';
import { type ChildApp, startChildApp, stopChildApp } from '../test/support/child-app';
import { OpenAITestServer } from '../test/support/openai-test-server';
import { ADMIN_KEY } from '../test/support/test-app';
import { startToolBackend } from '../test/support/tool-backend';
import { httpToolBody, llmEnv } from '../test/support/workflow-fixtures';
import { benchSize } from './bench-size';
import { median } from './median';
import {
  ANSWER,
  benchDatabases,
  conversation,
  type Database,
  definition,
  MODEL_CALLS,
  pingParameters,
  REPETITIONS,
} from './run-cost.bench';

/**
 * Runs per side before the timed ones (BENCH_COST_WARMUP; quick mode 50). V8 keeps optimizing ToolFlow's code for
 * hundreds of runs (the bare loop's, much smaller, within a few): after 5 runs a REST run's CPU is mostly
 * compilation that a service running for a while no longer pays.
 */
const WARM_UP = benchSize('BENCH_COST_WARMUP', 200, 50);

/** Linux counts process CPU in clock ticks of 10 ms (USER_HZ 100). */
const MS_PER_TICK = 10;

/** User + system CPU of a process (all its threads) so far, in ms, from /proc; of its main thread alone with `mainThread`. */
export function processCpuMs(pid: number, mainThread = false): number {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5) (utime, stime), counted from the state, which is field 3.
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/** The bare loop in its own process (bench/bare-loop-process.ts), one run per request. */
export class BareLoopProcess {
  private readonly child: ChildProcess;
  private readonly lines: Interface;
  private readonly waiting: Array<(line: string) => void> = [];

  constructor(modelUrl: string) {
    this.child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(__dirname, 'bare-loop-process.ts'), modelUrl],
      {
        cwd: join(__dirname, '..'),
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    this.lines = createInterface({ input: this.child.stdout! });
    this.lines.on('line', (line) => this.waiting.shift()?.(line));
  }

  async run(): Promise<{ wallMs: number; cpuMs: number }> {
    const line = await new Promise<string>((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin!.write('run\n');
    });
    const result = JSON.parse(line) as { answer?: string; error?: string; wallMs: number; cpuMs: number };
    if (result.answer !== ANSWER) throw new Error(`bare loop: ${result.error ?? result.answer}`);
    return result;
  }

  close(): void {
    this.lines.close();
    this.child.kill();
  }
}

async function benchOn(database: Database): Promise<Record<string, number>> {
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  const data = await database.create();
  const bare = new BareLoopProcess(llm.baseUrl);
  let app: ChildApp | undefined;
  try {
    app = await startChildApp(llmEnv(llm, { DATABASE_URL: data.url, LOG_LEVEL: 'silent' }));
    const pid = app.process.pid!;
    const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) =>
      fetch(`${app!.url}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const tool = await post(
      '/tools',
      httpToolBody('ping', `${backend.origin}/ping?id={id}`, { parameters: pingParameters }),
    );
    if (tool.status !== 201) throw new Error(`creating the tool failed: ${await tool.text()}`);
    const workflowId = ((await (await post('/workflows', definition)).json()) as { id: string }).id;

    const rest = async (): Promise<{ wallMs: number; cpuMs: number }> => {
      const cpu = processCpuMs(pid);
      const start = performance.now();
      const response = await post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Go.' } });
      const body = (await response.json()) as { status?: string; outputs?: { answer?: string } };
      const wallMs = performance.now() - start;
      if (body.outputs?.answer !== ANSWER) throw new Error(`REST run: ${JSON.stringify(body)}`);
      return { wallMs, cpuMs: processCpuMs(pid) - cpu };
    };
    const timed = async (run: () => Promise<{ wallMs: number; cpuMs: number }>) => {
      llm.reset();
      llm.script(conversation());
      return run();
    };
    for (let warmUp = 0; warmUp < WARM_UP; warmUp++) {
      await timed(rest);
      await timed(() => bare.run());
    }
    const restRuns: Array<{ wallMs: number; cpuMs: number }> = [];
    const bareRuns: Array<{ wallMs: number; cpuMs: number }> = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      if (repetition % 2 === 0) {
        restRuns.push(await timed(rest));
        bareRuns.push(await timed(() => bare.run()));
      } else {
        bareRuns.push(await timed(() => bare.run()));
        restRuns.push(await timed(rest));
      }
    }
    const perCall = (runs: Array<{ wallMs: number }>) => median(runs.map((run) => run.wallMs)) / MODEL_CALLS;
    // CPU is summed: /proc counts it in 10 ms ticks, coarser than one run.
    const cpuPerCall = (runs: Array<{ cpuMs: number }>) =>
      runs.reduce((sum, run) => sum + run.cpuMs, 0) / runs.length / MODEL_CALLS;
    const round = (value: number) => Math.round(value * 100) / 100;
    return {
      rest_client_ms_per_llm_call: round(perCall(restRuns)),
      bare_ms_per_llm_call: round(perCall(bareRuns)),
      latency_ratio: round(perCall(restRuns) / perCall(bareRuns)),
      server_cpu_ms_per_llm_call: round(cpuPerCall(restRuns)),
      bare_cpu_ms_per_llm_call: round(cpuPerCall(bareRuns)),
      cpu_ratio: round(cpuPerCall(restRuns) / cpuPerCall(bareRuns)),
    };
  } finally {
    if (app) await stopChildApp(app, 'SIGTERM');
    bare.close();
    await data.drop();
    await llm.close();
    await backend.close();
  }
}

/**
 * Cost per run as an outside harness sees it: ToolFlow in a process of its own, the REST run (`?wait=true`)
 * timed on this process's clock over real HTTP, and its CPU read from /proc (user + system, all threads); the
 * baseline is the bare `openai` streaming loop in a third process with the tool executed in-process. Same task
 * as run-cost.bench.ts. `node -r @swc-node/register bench/client-cost.bench.ts`
 */
export async function benchClientCost(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  for (const database of benchDatabases()) {
    for (const [name, value] of Object.entries(await benchOn(database))) results[`${database.label}_${name}`] = value;
  }
  return results;
}

if (require.main === module) {
  void benchClientCost().then((results) => console.table(results));
}
