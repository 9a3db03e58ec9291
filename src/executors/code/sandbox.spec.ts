import { ToolExecutionError } from '../../shared/tool-errors';
import { CodeRunError } from './code-run-error';
import type { CodeRunRequest } from './code-run';
import { CodeSandbox, type CodeSandboxEvent, type CodeSandboxOptions } from './sandbox';

jest.setTimeout(60_000);

const MIB = 1024 * 1024;

describe(CodeSandbox.name, () => {
  let sut: CodeSandbox;
  let events: CodeSandboxEvent[];

  const run = (code: string, overrides: Partial<CodeRunRequest> = {}) =>
    sut.run({ code, args: {}, timeoutMs: 1000, memoryMb: 64, maxOutputBytes: MIB, ...overrides });

  const create = (options: CodeSandboxOptions): CodeSandbox =>
    new CodeSandbox({ ...options, onEvent: (event) => events.push(event) });

  /** Resolves once the sandbox has reported an event matching `predicate`. */
  const reported = (predicate: (event: CodeSandboxEvent) => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => (events.some(predicate) ? resolve() : void setImmediate(check));
      check();
    });

  const started = (count: number) => reported(() => events.filter((e) => e.type === 'call-started').length >= count);

  beforeEach(() => {
    events = [];
    sut = create({ processes: 1, isolatesPerProcess: 2 });
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
    await expect(
      run('return new Array(1e8).fill(0).length', { memoryMb: 16, timeoutMs: 60_000 }),
    ).rejects.toMatchObject({
      reason: 'crashed',
    });
    await expect(run('return "still here"')).resolves.toMatchObject({ value: 'still here' });
  });

  it('should fail only the call that crashes its process and run a concurrent call of other code again', async () => {
    // The other call (several times longer than the crash takes) is running in the same process when
    // the crash comes; it starts again on a fresh one.
    const other = run('let sum = 0; for (let i = 0; i < args.n; i++) sum += i % 7; return sum;', {
      args: { n: 2.5e9 },
      timeoutMs: 120_000,
      owner: 'alice',
    });
    await started(1);
    // A long time limit: V8 may take seconds to give up on the allocation, the wall-clock guard must not come first.
    const bomb = run('return new Array(1e8).fill(0).length', { memoryMb: 16, timeoutMs: 60_000, owner: 'mallory' });
    await expect(bomb).rejects.toMatchObject({
      reason: 'crashed',
      message: expect.stringMatching(/^this code crashed the code sandbox \(Catastrophic out-of-memory error\)/),
    });
    await expect(other).resolves.toMatchObject({ value: expect.any(Number) });
    const [first, second] = events.filter((event) => event.type === 'call-started');
    expect(events.filter((event) => event.type !== 'call-started')).toEqual([
      { type: 'process-started', pid: first.pid },
      { type: 'process-crashed', pid: first.pid, culprit: second.id, how: 'Catastrophic out-of-memory error' },
      { type: 'process-started', pid: expect.any(Number) },
      { type: 'call-retried', id: first.id },
    ]);
  }, 180_000);

  it('should replace a crashed process at once and serve the next call from the new one', async () => {
    await expect(
      run('return new Array(1e8).fill(0).length', { memoryMb: 16, timeoutMs: 60_000 }),
    ).rejects.toMatchObject({
      reason: 'crashed',
    });
    const processes = events.filter((event) => event.type === 'process-started');
    expect(processes).toHaveLength(2);
    expect(processes[1].pid).not.toBe(processes[0].pid);
    await expect(run('return "fresh"')).resolves.toMatchObject({ value: 'fresh' });
    expect(events.at(-1)).toMatchObject({ type: 'call-started', pid: processes[1].pid });
  });

  it('should serve another owner while two calls of one owner spin', async () => {
    sut.dispose();
    sut = create({ processes: 1, isolatesPerProcess: 3, maxPerOwner: 2 });
    const stop = new AbortController();
    const spinning = [1, 2].map(() =>
      run('for (;;) {}', { owner: 'alice', timeoutMs: 60_000, signal: stop.signal }).catch((error: unknown) => error),
    );
    await started(2);
    await expect(run('return args.n + 1', { owner: 'bob', args: { n: 41 } })).resolves.toMatchObject({ value: 42 });
    stop.abort();
    await expect(Promise.all(spinning)).resolves.toEqual([
      expect.objectContaining({ reason: 'cancelled' }),
      expect.objectContaining({ reason: 'cancelled' }),
    ]);
  });

  it("should keep one owner's further calls waiting so another owner is served first", async () => {
    sut.dispose();
    sut = create({ processes: 1, isolatesPerProcess: 2, maxPerOwner: 1 });
    const stop = new AbortController();
    const spin = () =>
      run('for (;;) {}', { owner: 'alice', timeoutMs: 60_000, signal: stop.signal }).catch((error: unknown) => error);
    const spinning = [spin(), spin()];
    await started(1);
    expect(sut.usage).toMatchObject({ running: 1, waiting: 1 });
    const served = await run('return "bob"', { owner: 'bob' });
    expect(served.value).toBe('bob');
    expect(events.filter((event) => event.type === 'call-started').map((event) => event.owner)).toEqual([
      'alice',
      'bob',
    ]);
    stop.abort();
    await Promise.all(spinning);
  });

  it('should not count the wait for a slot against the limits of the waiting call and report it', async () => {
    sut.dispose();
    sut = create({ processes: 1, isolatesPerProcess: 1 });
    const spinner = run('for (;;) {}', { owner: 'alice', timeoutMs: 500 });
    await started(1);
    // 10 ms of CPU, far less than the wait behind the spinner, which uses its full 500 ms.
    const waiting = run('return 1', { owner: 'bob', timeoutMs: 10 });
    await expect(spinner).rejects.toMatchObject({ reason: 'cpu_time' });
    const result = await waiting;
    expect(result.value).toBe(1);
    expect(result.queueMs).toBeGreaterThan(0);
  });

  it('should fail a call that waits for a slot longer than the queue limit as busy', async () => {
    sut.dispose();
    sut = create({ processes: 1, isolatesPerProcess: 1, maxQueueMs: 100 });
    const stop = new AbortController();
    const spinner = run('for (;;) {}', { timeoutMs: 60_000, signal: stop.signal }).catch((error: unknown) => error);
    await started(1);
    await expect(run('return 1')).rejects.toMatchObject({
      reason: 'busy',
      message: 'no code sandbox slot became free within 100 ms; too many code calls are running',
    });
    stop.abort();
    await spinner;
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
