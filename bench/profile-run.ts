import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildApp, stopChildApp } from '../test/support/child-app';
import { OpenAITestServer } from '../test/support/openai-test-server';
import { ADMIN_KEY } from '../test/support/test-app';
import { startToolBackend } from '../test/support/tool-backend';
import { httpToolBody, llmEnv } from '../test/support/workflow-fixtures';
import { processCpuMs } from './client-cost.bench';
import { ANSWER, benchDatabases, conversation, definition, MODEL_CALLS, pingParameters } from './run-cost.bench';

/**
 * Where a warm REST run's CPU goes: ToolFlow in its own process under `--cpu-prof`, the run-cost task posted
 * `?wait=true` RUNS times after WARM_UP runs, and the samples of that timed phase (only) summed by area, in ms of
 * CPU per LLM call. Native frames (JSON, regexps, builtins) count toward the nearest caller with a source file.
 * `node -r @swc-node/register bench/profile-run.ts [sqlite|mariadb] [runs] [warm-up runs]`; PROFILE_KEEP=<file> also writes the
 * profile and the timed phase's bounds there, for a closer look.
 */
const RUNS = Number(process.argv[3] ?? 100);
/** Runs before the timed ones: V8 keeps optimizing ToolFlow's code for hundreds of runs. */
const WARM_UP = Number(process.argv[4] ?? 300);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Areas in order: the first whose pattern matches a frame's file (or name) gets its samples. */
const AREAS: Array<[string, RegExp]> = [
  ['GC', /^\(garbage collector\)$/],
  ['idle', /^\(idle\)$/],
  ['program (native, unattributed)', /^\(program\)$/],
  ['SQLite driver', /better-sqlite3/],
  ['MySQL driver', /mysql2|denque|lru-cache|iconv-lite|named-placeholders|sqlstring|long\//],
  ['TypeORM', /typeorm/],
  ['openai SDK', /node_modules\/openai/],
  ['validation (ajv, class-validator/transformer)', /ajv|class-validator|class-transformer|json-schema\//],
  ['logging (pino)', /pino|sonic-boom|thread-stream/],
  ['metrics (prom-client)', /prom-client/],
  ['tracing (opentelemetry)', /opentelemetry/],
  ['Nest + rxjs', /@nestjs|rxjs/],
  [
    'Express + body parsing',
    /express|body-parser|router|raw-body|qs\/|iconv|type-is|content-type|on-finished|finalhandler|send\/|path-to-regexp|cookie|accepts|negotiator|depd|mime|fresh|etag/,
  ],
  ['src/llm (provider client)', /\/src\/llm\//],
  ['src/agent (loop)', /\/src\/agent\//],
  ['src/workflow (engine, nodes)', /\/src\/workflow\//],
  ['src/runs (records, events, checkpoints)', /\/src\/runs\//],
  ['src/executors + outbound (tool calls)', /\/src\/(executors|outbound|registry)\//],
  ['src/call-logs', /\/src\/call-logs\//],
  ['src/common, config, telemetry, other src', /\/src\//],
  ['node: http', /node:_http|node:http|_http_/],
  [
    'node: net, streams, tls, dns',
    /node:net|node:stream|node:internal\/streams|node:dns|node:internal\/dns|net\.js|stream/,
  ],
  ['node: timers, async hooks, events', /timers|async_hooks|node:events|node:internal\/event_target|abort/],
  ['undici (fetch)', /undici|node:internal\/deps\/undici/],
  ['node: other internals', /^node:/],
  ['other node_modules', /node_modules/],
];

function areaOf(node: ProfileNode): string | undefined {
  const { url, functionName } = node.callFrame;
  const key = url || functionName;
  if (!url && !functionName.startsWith('(')) return undefined;
  return AREAS.find(([, pattern]) => pattern.test(key))?.[0] ?? `other (${key.slice(0, 40)})`;
}

/** ms of CPU per area over the samples taken between fromUs and toUs (the profile's own clock). */
export function cpuByArea(profile: Profile, fromUs: number, toUs: number): Map<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const attributed = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = attributed.get(id);
    if (known) return known;
    let area = areaOf(byId.get(id)!);
    if (area === undefined) area = parent.has(id) ? resolve(parent.get(id)!) : 'native, no caller';
    attributed.set(id, area);
    return area;
  };
  const totals = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index];
    at += delta;
    if (at < fromUs || at > toUs) return;
    const area = resolve(id);
    totals.set(area, (totals.get(area) ?? 0) + delta / 1000);
  });
  return totals;
}

async function main(): Promise<void> {
  const label = process.argv[2] ?? 'sqlite';
  const database = benchDatabases().find((candidate) => candidate.label === label);
  if (!database) throw new Error(`no database ${label}`);
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  const data = await database.create();
  const dir = mkdtempSync(join(tmpdir(), 'toolflow-profile-'));
  const app = await startChildApp(llmEnv(llm, { DATABASE_URL: data.url, LOG_LEVEL: 'silent' }), [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
  ]).catch(async (error: unknown) => {
    await Promise.all([data.drop(), llm.close(), backend.close()]);
    throw error;
  });
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${app.url}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  let fromUs = 0;
  let toUs = 0;
  let cpu = { process: 0, main: 0 };
  try {
    await post('/tools', httpToolBody('ping', `${backend.origin}/ping?id={id}`, { parameters: pingParameters }));
    const workflowId = ((await (await post('/workflows', definition)).json()) as { id: string }).id;
    const run = async () => {
      llm.reset();
      llm.script(conversation());
      const response = await post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Go.' } });
      const body = (await response.json()) as { outputs?: { answer?: string } };
      if (body.outputs?.answer !== ANSWER) throw new Error(JSON.stringify(body));
    };
    for (let index = 0; index < WARM_UP; index++) await run();
    // V8's profile clock is the monotonic clock, as hrtime's is.
    const pid = app.process.pid!;
    const [processBefore, mainBefore] = [processCpuMs(pid), processCpuMs(pid, true)];
    fromUs = Number(process.hrtime.bigint() / 1000n);
    for (let index = 0; index < RUNS; index++) await run();
    toUs = Number(process.hrtime.bigint() / 1000n);
    cpu = { process: processCpuMs(pid) - processBefore, main: processCpuMs(pid, true) - mainBefore };
  } finally {
    await stopChildApp(app, 'SIGTERM');
    await data.drop();
    await llm.close();
    await backend.close();
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
  rmSync(dir, { recursive: true, force: true });
  if (process.env.PROFILE_KEEP) writeFileSync(process.env.PROFILE_KEEP, JSON.stringify({ profile, fromUs, toUs }));
  const totals = cpuByArea(profile, fromUs, toUs);
  const calls = RUNS * MODEL_CALLS;
  const busy = [...totals].filter(([area]) => area !== 'idle').reduce((sum, [, ms]) => sum + ms, 0);
  const rows = [...totals]
    .filter(([area]) => area !== 'idle')
    .sort((a, b) => b[1] - a[1])
    .map(([area, ms]) => ({
      area,
      'ms CPU / LLM call': Math.round((ms / calls) * 100) / 100,
      share: `${Math.round((ms / busy) * 100)}%`,
    }));
  console.log(
    `${label}: ${RUNS} runs, ${calls} LLM calls, ${Math.round((toUs - fromUs) / 1000)} ms wall, busy ${Math.round((busy / calls) * 100) / 100} ms / LLM call`,
  );
  const perCall = (ms: number) => Math.round((ms / calls) * 100) / 100;
  console.log(
    `process CPU (/proc, user + system, profiler included) ${perCall(cpu.process)} ms / LLM call: main thread ` +
      `${perCall(cpu.main)}, other threads (V8's compiler and GC helpers) ${perCall(cpu.process - cpu.main)}`,
  );
  console.table(rows);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
