import { ToolExecutionError } from '../tool-definition';
import { CodeRunError } from './code-run-error';
import type { CodeRunRequest } from './code-run';
import { CodeSandbox } from './sandbox';

jest.setTimeout(30_000);

const MIB = 1024 * 1024;

describe(CodeSandbox.name, () => {
  let sut: CodeSandbox;

  const run = (code: string, overrides: Partial<CodeRunRequest> = {}) =>
    sut.run({ code, args: {}, timeoutMs: 1000, memoryMb: 64, maxOutputBytes: MIB, ...overrides });

  beforeEach(() => {
    sut = new CodeSandbox({ maxConcurrent: 2 });
  });

  afterEach(() => sut.dispose());

  it('should run code in the child process and return value, logs and duration', async () => {
    const result = await run('console.log("adding"); return { sum: args.a + args.b }', { args: { a: 1, b: 2 } });
    expect(result.value).toEqual({ sum: 3 });
    expect(result.logs).toEqual([{ level: 'log', message: 'adding' }]);
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('should bring failures across the process boundary as CodeRunError', async () => {
    const failure = run('console.warn("about to fail");\nnull.x;');
    await expect(failure).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(failure).rejects.toMatchObject({
      reason: 'threw',
      message: "code threw: TypeError: Cannot read properties of null (reading 'x') (line 2)",
      logs: [{ level: 'warn', message: 'about to fail' }],
    });
  });

  it('should survive code that aborts the sandbox process and serve the next call', async () => {
    // A single allocation far above the isolate's limit is a fatal V8 OOM, not a catchable one.
    await expect(run('return new Array(1e8).fill(0).length', { memoryMb: 16 })).rejects.toMatchObject({
      reason: 'crashed',
    });
    await expect(run('return "still here"')).resolves.toMatchObject({ value: 'still here' });
  });

  it('should stop a memory bomb within the memory limit', async () => {
    const bomb = 'const list = []; for (;;) list.push({ n: Math.random(), s: "x" + Math.random() });';
    await expect(run(bomb, { memoryMb: 16, timeoutMs: 10_000 })).rejects.toMatchObject({
      reason: 'memory',
      message: 'code exceeded its memory limit of 16 MiB',
    });
    await expect(run('return 2')).resolves.toMatchObject({ value: 2 });
  });

  it('should run 20 concurrent calls', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) => run('await null; return args.n * 2', { args: { n } })),
    );
    expect(results.map((result) => result.value)).toEqual(Array.from({ length: 20 }, (_, n) => n * 2));
  });

  it('should cancel a running call when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = run('for (;;) {}', { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({ reason: 'cancelled' });
  });

  it('should not start a call whose signal is already aborted', async () => {
    await expect(run('return 1', { signal: AbortSignal.abort() })).rejects.toMatchObject({ reason: 'cancelled' });
  });

  it('should fail running and later calls once disposed', async () => {
    const running = run('for (;;) {}', { timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    sut.dispose();
    await expect(running).rejects.toMatchObject({ reason: 'unavailable' });
    await expect(run('return 1')).rejects.toBeInstanceOf(CodeRunError);
  });
});
