import Ajv from 'ajv';
import { ArgumentValidator } from '../arguments';
import { runTool } from '../run-tool';
import type { StoredTool } from '../executor';
import type { ToolExecuteContext, ToolExecuteResult } from '../../shared/tool-definition';
import { CodeRunError } from './code-run-error';
import type { CodeRunRequest, CodeRunResult } from './code-run';
import { type CodeToolConfig, type CodeToolLimits, createCodeExecutor } from './code-executor';
import { CodeSandbox } from './sandbox';

// Jest's resolver cannot load the native addon (jest.config.js lacks 'node' in moduleFileExtensions).

const limits: CodeToolLimits = {
  defaultTimeoutMs: 1000,
  maxTimeoutMs: 5000,
  defaultMemoryMb: 64,
  maxMemoryMb: 128,
  maxOutputBytes: 1024 * 1024,
  maxQueueMs: 30_000,
};

const storedTool = (config: Partial<CodeToolConfig> = {}): StoredTool & { implementationConfig: CodeToolConfig } => ({
  id: 'tool-1',
  name: 'add',
  requiresApproval: false,
  version: 3,
  userId: 'user-1',
  effect: 'read_only',
  functionSchema: { type: 'function', function: { name: 'add', parameters: { type: 'object' } } },
  implementationType: 'code',
  implementationConfig: { language: 'javascript', code: 'return { sum: args.a + args.b };', ...config },
});

const runContext = (userId: string) => ({
  runId: null,
  userId,
  isAdmin: false,
  signal: new AbortController().signal,
  depth: 0,
});

const executeContext = (
  params: Record<string, unknown>,
  signal = new AbortController().signal,
): ToolExecuteContext => ({
  call: { id: 'call-1', name: 'add', arguments: JSON.stringify(params) },
  params,
  messages: [],
  run: { runId: null, userId: 'user-1', isAdmin: false, signal, depth: 0 },
  signal,
});

describe(createCodeExecutor.name, () => {
  const sandboxResult: CodeRunResult = {
    value: { sum: 3 },
    logs: [{ level: 'log', message: 'hi' }],
    durationMs: 4.5,
    cpuMs: 3.123_456_7,
    queueMs: 0.182_176_000_002,
  };
  let run: jest.Mock<Promise<CodeRunResult>, [CodeRunRequest]>;

  beforeEach(() => {
    run = jest.fn<Promise<CodeRunResult>, [CodeRunRequest]>().mockResolvedValue(sandboxResult);
  });

  const execute = async (
    config: Partial<CodeToolConfig>,
    params: Record<string, unknown>,
  ): Promise<ToolExecuteResult> => {
    const sut = createCodeExecutor({ run }, limits);
    const definition = await sut.toDefinition(storedTool(config));
    return definition.execute(executeContext(params));
  };

  describe('configSchema', () => {
    const validate = new Ajv({ strict: true }).compile(createCodeExecutor({ run }, limits).configSchema);

    it.each([
      [{ language: 'javascript', code: 'return 1' }],
      [{ language: 'javascript', code: 'return 1', timeout_ms: 5000, memory_mb: 128 }],
      [{ language: 'python', code: 'def main(args):\n    return 1' }],
    ])('should accept %p', (config) => {
      expect(validate(config)).toBe(true);
    });

    it.each([
      [{ language: 'ruby', code: 'return 1' }],
      [{ language: 'javascript' }],
      [{ language: 'javascript', code: '' }],
      [{ language: 'javascript', code: 'return 1', timeout_ms: 5001 }],
      [{ language: 'javascript', code: 'return 1', memory_mb: 4 }],
      [{ language: 'javascript', code: 'return 1', memory_mb: 129 }],
      [{ language: 'javascript', code: 'return 1', extra: true }],
    ])('should refuse %p', (config) => {
      expect(validate(config)).toBe(false);
    });
  });

  it('should report syntax errors of the code at save time', () => {
    const sut = createCodeExecutor({ run }, limits);
    const config: CodeToolConfig = { language: 'javascript', code: 'return 1 +;' };
    expect(sut.validateConfig?.(config, storedTool())).toEqual([
      { path: '/code', message: "SyntaxError: Unexpected token ';' (line 1, column 11)" },
    ]);
  });

  it('should describe itself as the code type without secrets', () => {
    const sut = createCodeExecutor({ run }, limits);
    expect(sut.type).toBe('code');
    expect(sut.secretPaths).toEqual([]);
  });

  it('should turn the sandbox result into the response, data and metadata (the wait and the CPU time in whole microseconds)', async () => {
    await expect(execute({}, { a: 1, b: 2 })).resolves.toEqual({
      response: '{"sum":3}',
      data: { sum: 3 },
      metadata: { logs: [{ level: 'log', message: 'hi' }], duration_ms: 4.5, cpu_ms: 3.123, queue_ms: 0.182 },
    });
  });

  it('should run the code with the params, default limits, the call signal and the caller as owner', async () => {
    const sut = createCodeExecutor({ run }, limits);
    const definition = await sut.toDefinition(storedTool());
    const controller = new AbortController();
    await definition.execute(executeContext({ a: 1 }, controller.signal));
    expect(run).toHaveBeenCalledWith({
      code: 'return { sum: args.a + args.b };',
      args: { a: 1 },
      timeoutMs: 1000,
      memoryMb: 64,
      maxOutputBytes: 1024 * 1024,
      signal: controller.signal,
      owner: 'user-1',
    });
  });

  it('should use the tool limits but never above the operator maxima', async () => {
    await execute({ timeout_ms: 200, memory_mb: 16 }, {});
    await execute({ timeout_ms: 60_000, memory_mb: 4096 }, {});
    expect(run.mock.calls.map(([request]) => [request.timeoutMs, request.memoryMb])).toEqual([
      [200, 16],
      [5000, 128],
    ]);
  });

  it('should give the definition a deadline above the CPU and wall-clock limits plus the longest queue wait', async () => {
    const definition = await createCodeExecutor({ run }, limits).toDefinition(storedTool({ timeout_ms: 500 }));
    expect(definition.timeoutMs).toBe(2000 + 30_000);
    expect(definition.schema.function.name).toBe('add');
    expect(definition.effect).toBe('read_only');
  });

  it('should let sandbox failures through for runTool to report', async () => {
    const failure = new CodeRunError('cpu_time', 'code exceeded its CPU time limit of 1000 ms');
    run.mockRejectedValue(failure);
    await expect(execute({}, {})).rejects.toBe(failure);
  });

  it('should run the stored example end to end in the real sandbox', async () => {
    const sandbox = new CodeSandbox({ processes: 1, isolatesPerProcess: 1 });
    try {
      const definition = await createCodeExecutor(sandbox, limits).toDefinition(storedTool());
      const result = await definition.execute(executeContext({ a: 2, b: 40 }));
      expect(result).toMatchObject({ response: '{"sum":42}', data: { sum: 42 }, metadata: { logs: [] } });
    } finally {
      sandbox.dispose();
    }
  }, 30_000);

  it('should not count the wait for a sandbox slot against the deadline of a call', async () => {
    const sandbox = new CodeSandbox({ processes: 1, isolatesPerProcess: 1 });
    try {
      const executor = createCodeExecutor(sandbox, limits);
      const spin = await executor.toDefinition({
        ...storedTool({ code: 'for (;;) {}', timeout_ms: 1500 }),
        functionSchema: { type: 'function', function: { name: 'spin', parameters: { type: 'object' } } },
      });
      // 10 ms of CPU: a deadline of 1020 ms, shorter than the 1500 ms the spinner holds the only slot.
      const add = await executor.toDefinition(storedTool({ timeout_ms: 10 }));
      const call = (name: string, userId: string) =>
        runTool({
          call: { id: name, name, arguments: '{"a": 2, "b": 40}' },
          tools: [spin, add],
          context: runContext(userId),
          validator: new ArgumentValidator(),
          defaultTimeoutMs: 1000,
        });
      const spinning = call('spin', 'alice');
      await new Promise((resolve) => setImmediate(resolve));
      const added = await call('add', 'bob');
      expect(added).toMatchObject({ status: 'success', data: { sum: 42 } });
      expect(added.metadata.queue_ms).toBeGreaterThan(0);
      const spun = await spinning;
      expect(spun).toMatchObject({ status: 'error', metadata: { reason: 'cpu_time' } });
      // What the quotas count: the isolate's CPU time, which one thread can only spend within the call's time.
      expect(spun.metadata.cpu_ms).toBeGreaterThan(0);
      expect(spun.metadata.cpu_ms).toBeLessThanOrEqual(spun.metadata.duration_ms);
      expect(added.metadata.cpu_ms).toBeLessThanOrEqual(added.metadata.duration_ms);
    } finally {
      sandbox.dispose();
    }
  }, 60_000);
});
