import { median } from './median';
import type { CodeRunRequest } from '../src/executors/code/code-run';
import { namespacesAvailable, PythonSandbox } from '../src/executors/code/python-sandbox';
import { processUsage } from '../src/executors/code/process-usage';
import { CodeSandbox } from '../src/executors/code/sandbox';

const COLD_SAMPLES = 3;
const WARM_SAMPLES = 200;
const limits = { timeoutMs: 5000, memoryMb: 64, maxOutputBytes: 1024 * 1024 };
const javascript: CodeRunRequest = { ...limits, code: 'return { sum: args.a + args.b };', args: { a: 1, b: 2 } };
const python: CodeRunRequest = {
  ...limits,
  code: 'def main(args):\n    return {"sum": args["a"] + args["b"]}\n',
  args: { a: 1, b: 2 },
};

const timed = async (action: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await action();
  return performance.now() - started;
};

const round = (value: number): number => Math.round(value * 100) / 100;

/** Resident memory of the sandbox's runtime processes, in MiB (Linux only; 0 elsewhere). */
const residentMib = (pids: Array<number | undefined>): number =>
  pids.reduce<number>((sum, pid) => sum + (pid === undefined ? 0 : (processUsage(pid)?.rssBytes ?? 0)), 0) / 2 ** 20;

/**
 * A Python code tool call (Pyodide in a child process, inside its own namespaces) beside a JavaScript one
 * (isolated-vm in a child process), in the same run: the first call of a new sandbox (the process start
 * included) and warm calls, medians; and the memory one Python process holds once warm.
 */
export async function benchPythonTool(): Promise<Record<string, number | string>> {
  const isolation = namespacesAvailable() ? 'namespaces' : 'none';
  const sandboxes = {
    javascript: () => new CodeSandbox({ processes: 1 }),
    python: () => new PythonSandbox({ processes: 1, maxQueueMs: 600_000, isolation }),
  };
  const cold = { javascript: [] as number[], python: [] as number[] };
  for (let i = 0; i < COLD_SAMPLES; i++) {
    const js = sandboxes.javascript();
    cold.javascript.push(await timed(() => js.run(javascript)));
    js.dispose();
    const py = sandboxes.python();
    cold.python.push(await timed(() => py.run(python)));
    py.dispose();
  }
  const js = sandboxes.javascript();
  const py = sandboxes.python();
  const warm = { javascript: [] as number[], python: [] as number[] };
  for (let i = 0; i < 20; i++) await Promise.all([js.run(javascript), py.run(python)]);
  for (let i = 0; i < WARM_SAMPLES; i++) {
    warm.javascript.push(await timed(() => js.run(javascript)));
    warm.python.push(await timed(() => py.run(python)));
  }
  const pythonPids = (py as unknown as { processes: Array<{ runtimePid: number | undefined }> }).processes.map(
    (worker) => worker.runtimePid,
  );
  const pythonMib = residentMib(pythonPids);
  js.dispose();
  py.dispose();
  return {
    python_isolation: isolation,
    javascript_cold_call_ms_median: round(median(cold.javascript)),
    python_cold_call_ms_median: round(median(cold.python)),
    cold_ratio_python_to_javascript: round(median(cold.python) / median(cold.javascript)),
    javascript_warm_call_ms_median: round(median(warm.javascript)),
    python_warm_call_ms_median: round(median(warm.python)),
    warm_ratio_python_to_javascript: round(median(warm.python) / median(warm.javascript)),
    python_process_rss_mib: round(pythonMib),
  };
}

if (require.main === module) {
  benchPythonTool()
    .then((results) => console.table(results))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
