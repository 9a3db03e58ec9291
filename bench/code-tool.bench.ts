import { IsolateSandbox } from '../src/executors/code/isolate-sandbox';
import { CodeSandbox } from '../src/executors/code/sandbox';
import type { CodeRunRequest } from '../src/executors/code/code-run';

const COLD_SAMPLES = 20;
const WARM_SAMPLES = 500;

const request: CodeRunRequest = {
  code: 'return { sum: args.a + args.b };',
  args: { a: 1, b: 2 },
  timeoutMs: 1000,
  memoryMb: 64,
  maxOutputBytes: 1024 * 1024,
};

const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
};

const round = (value: number): number => Math.round(value * 1000) / 1000;

const timed = async (action: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await action();
  return performance.now() - started;
};

const inProcessOptions = { maxConcurrent: 4, maxIdlePerSize: 2, maxLogEntries: 100, maxLogChars: 20_000 };

/** Median/p95 of `samples` calls in one in-process sandbox (no child process, no IPC). */
const inProcessCalls = async (maxCallsPerIsolate: number, samples: number): Promise<number[]> => {
  const sandbox = new IsolateSandbox({ ...inProcessOptions, maxCallsPerIsolate });
  const durations: number[] = [];
  for (let i = 0; i < samples; i++) durations.push(await timed(() => sandbox.run(request)));
  sandbox.dispose();
  return durations;
};

/** Warm calls of one owner while another owner's two calls spin (`for (;;) {}`) in the same pool. */
const besideSpinning = async (samples: number): Promise<number[]> => {
  const sandbox = new CodeSandbox();
  await sandbox.warmUp();
  const stop = new AbortController();
  const spin = { ...request, code: 'for (;;) {}', timeoutMs: 60_000, owner: 'spinner', signal: stop.signal };
  const spinning = [sandbox.run(spin), sandbox.run(spin)].map((call) => call.catch(() => undefined));
  while (sandbox.usage.running < 2) await new Promise((resolve) => setImmediate(resolve));
  const durations: number[] = [];
  for (let i = 0; i < samples; i++) durations.push(await timed(() => sandbox.run({ ...request, owner: 'other' })));
  stop.abort();
  await Promise.all(spinning);
  sandbox.dispose();
  return durations;
};

/** Cold start and warm call of the code tool sandbox, in milliseconds. */
export async function benchCodeTool(): Promise<Record<string, number>> {
  const processStart: number[] = [];
  const coldFirstCall: number[] = [];
  const firstCallAfterWarmUp: number[] = [];
  for (let i = 0; i < COLD_SAMPLES; i++) {
    const sandbox = new CodeSandbox();
    coldFirstCall.push(await timed(() => sandbox.run(request)));
    sandbox.dispose();
    const warmed = new CodeSandbox();
    processStart.push(await timed(() => warmed.warmUp()));
    firstCallAfterWarmUp.push(await timed(() => warmed.run(request)));
    warmed.dispose();
  }

  const sandbox = new CodeSandbox();
  await sandbox.warmUp();
  for (let i = 0; i < 20; i++) await sandbox.run(request);
  const warm: number[] = [];
  for (let i = 0; i < WARM_SAMPLES; i++) warm.push(await timed(() => sandbox.run(request)));
  sandbox.dispose();

  const beside = await besideSpinning(100);
  const reused = await inProcessCalls(100, WARM_SAMPLES);
  const fresh = await inProcessCalls(1, 100);

  return {
    cold_start_ms_median: round(percentile(coldFirstCall, 50)),
    child_process_start_ms_median: round(percentile(processStart, 50)),
    first_call_after_warm_up_ms_median: round(percentile(firstCallAfterWarmUp, 50)),
    warm_call_ms_median: round(percentile(warm, 50)),
    warm_call_ms_p95: round(percentile(warm, 95)),
    warm_call_beside_two_spinning_ms_median: round(percentile(beside, 50)),
    warm_call_beside_two_spinning_ms_p95: round(percentile(beside, 95)),
    in_process_reused_isolate_ms_median: round(percentile(reused, 50)),
    in_process_reused_isolate_ms_p95: round(percentile(reused, 95)),
    in_process_fresh_isolate_ms_median: round(percentile(fresh, 50)),
    in_process_fresh_isolate_ms_p95: round(percentile(fresh, 95)),
  };
}

if (require.main === module) {
  benchCodeTool().then(
    (results) => console.table(results),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
