import { type Static, Type } from '@sinclair/typebox';
import { enumOf } from '../../json-schema/schema-helpers';
import type { ToolExecutor } from '../executor';
import { wallTimeLimitMs } from './code-run';
import type { ConfigProblem } from '../../tools/tool-implementations';
import { CodeRunError } from './code-run-error';
import type { PythonSandbox } from './python-sandbox';
import type { CodeSandbox } from './sandbox';
import { validateCode } from './validate-code';

/** Operator limits (from config/); per-tool values may only lower them. */
export interface CodeToolLimits {
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  defaultMemoryMb: number;
  maxMemoryMb: number;
  maxOutputBytes: number;
  /** The longest a call waits for a sandbox slot; its deadline is extended by this, never its limits. */
  maxQueueMs: number;
}

export const MAX_CODE_CHARS = 100_000;
/** isolated-vm refuses isolates below 8 MiB. */
const MIN_MEMORY_MB = 8;

/** `implementation_config` of a `code` tool; the operator limits bound `timeout_ms` and `memory_mb`. */
const configSchema = (limits: Pick<CodeToolLimits, 'maxTimeoutMs' | 'maxMemoryMb'>) =>
  Type.Object(
    {
      language: enumOf(['javascript', 'python'], { type: 'string' }),
      code: Type.String({
        minLength: 1,
        maxLength: MAX_CODE_CHARS,
        description:
          'javascript: the body of an async function receiving `args`; `return` a JSON value. No require, timers ' +
          'or I/O. python: a module defining `main(args)` (or `async def main(args)`) that returns a JSON value; ' +
          'the standard library, no network, files only in a scratch /tmp emptied before every call.',
        examples: ['return { sum: args.a + args.b };', 'def main(args):\n    return {"sum": args["a"] + args["b"]}'],
      }),
      timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.maxTimeoutMs })),
      memory_mb: Type.Optional(Type.Integer({ minimum: MIN_MEMORY_MB, maximum: limits.maxMemoryMb })),
    },
    { additionalProperties: false },
  );
export type CodeToolConfig = Static<ReturnType<typeof configSchema>>;

/** Microseconds are the most a wait or a CPU time measured here can tell. */
const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Python tools' sandbox, or why this service cannot run them. */
export type PythonRunner = Pick<PythonSandbox, 'run' | 'check'> | { unavailable: string };

const checkPython = async (python: PythonRunner, code: string): Promise<ConfigProblem[]> => {
  if ('unavailable' in python) return [{ path: '/language', message: python.unavailable }];
  const problem = await python.check(code);
  return problem ? [{ path: '/code', message: problem.message }] : [];
};

/** The `code` implementation type: user JavaScript (or Python) run in a sandbox with the model's arguments. */
export const createCodeExecutor = (
  sandbox: Pick<CodeSandbox, 'run'>,
  limits: CodeToolLimits,
  python: PythonRunner = { unavailable: 'Python code tools are not enabled on this service' },
): ToolExecutor<CodeToolConfig> => ({
  type: 'code',
  configSchema: configSchema(limits),
  configDescription:
    'JavaScript function body run in an isolated V8 sandbox with the arguments as `args`, or a Python module ' +
    'defining main(args) run in a Pyodide sandbox; the JSON value returned is the result.',
  secretPaths: [],
  validateConfig: (config) =>
    config.language === 'python' ? checkPython(python, config.code) : validateCode(config.code),
  toDefinition: (tool) => {
    const { code, language } = tool.implementationConfig;
    const runner = language === 'python' ? python : sandbox;
    const timeoutMs = Math.min(tool.implementationConfig.timeout_ms ?? limits.defaultTimeoutMs, limits.maxTimeoutMs);
    const memoryMb = Math.min(tool.implementationConfig.memory_mb ?? limits.defaultMemoryMb, limits.maxMemoryMb);
    return {
      id: tool.id,
      version: tool.version,
      schema: tool.functionSchema,
      effect: tool.effect,
      // The sandbox enforces the CPU and wall-clock limits from the moment the call gets a slot;
      // this outer deadline only backs them up, so it covers the wait for a slot as well.
      timeoutMs: wallTimeLimitMs(timeoutMs) + limits.maxQueueMs,
      execute: async (context) => {
        if ('unavailable' in runner) throw new CodeRunError('unavailable', runner.unavailable);
        const { value, logs, durationMs, cpuMs, queueMs } = await runner.run({
          code,
          args: context.params,
          timeoutMs,
          memoryMb,
          maxOutputBytes: limits.maxOutputBytes,
          signal: context.signal,
          owner: context.run.userId,
        });
        return {
          response: JSON.stringify(value),
          data: value,
          metadata: {
            logs,
            duration_ms: durationMs,
            cpu_ms: roundMs(cpuMs),
            queue_ms: roundMs(queueMs),
          },
        };
      },
    };
  },
});
