import { ToolExecutionError } from '../../shared/tool-errors';
import { CodeRunError } from './code-run-error';
import type { CodeRunRequest } from './code-run';
import { IsolateSandbox } from './isolate-sandbox';

// Jest's resolver cannot load the native addon (jest.config.js lacks 'node' in moduleFileExtensions).
jest.setTimeout(20_000);

const MIB = 1024 * 1024;

describe(IsolateSandbox.name, () => {
  let sut: IsolateSandbox;

  const run = (code: string, overrides: Partial<CodeRunRequest> = {}) =>
    sut.run({ code, args: {}, timeoutMs: 1000, memoryMb: 64, maxOutputBytes: MIB, ...overrides });

  const valueOf = async (code: string, args: Record<string, unknown> = {}): Promise<unknown> =>
    JSON.parse((await run(code, { args })).json) as unknown;

  const failureOf = async (code: string, overrides: Partial<CodeRunRequest> = {}): Promise<CodeRunError> => {
    try {
      await run(code, overrides);
    } catch (error) {
      if (error instanceof CodeRunError) return error;
      throw error;
    }
    throw new Error(`expected ${code} to fail`);
  };

  beforeEach(() => {
    sut = new IsolateSandbox({
      maxConcurrent: 2,
      maxIdlePerSize: 2,
      maxCallsPerIsolate: 100,
      maxLogEntries: 3,
      maxLogChars: 50,
    });
  });

  afterEach(() => sut.dispose());

  describe('results', () => {
    it('should return the value of a synchronous body', async () => {
      await expect(valueOf('return {sum: args.a + args.b}', { a: 2, b: 3 })).resolves.toEqual({ sum: 5 });
    });

    it('should await inside an async body', async () => {
      const code = 'const double = async (x) => x * 2; return { value: await double(await args.n) };';
      await expect(valueOf(code, { n: 21 })).resolves.toEqual({ value: 42 });
    });

    it('should pass args in as a copy', async () => {
      const args = { nested: { list: [1, 'two', null, true] } };
      await expect(valueOf('args.nested.list.push(5); return args', args)).resolves.toEqual({
        nested: { list: [1, 'two', null, true, 5] },
      });
      expect(args.nested.list).toEqual([1, 'two', null, true]);
    });

    it('should return null when the body returns nothing', async () => {
      await expect(valueOf('const x = 1;')).resolves.toBeNull();
    });

    it('should report how long the call took', async () => {
      const output = await run('return 1');
      expect(output.durationMs).toBeGreaterThan(0);
    });
  });

  describe('failures', () => {
    it('should report a thrown error with its line', async () => {
      const error = await failureOf('const x = 1;\n\nx();');
      expect(error).toBeInstanceOf(ToolExecutionError);
      expect(error.reason).toBe('threw');
      expect(error.message).toBe('code threw: TypeError: x is not a function (line 3)');
    });

    it.each([
      ['throw 42', 'code threw: 42'],
      ['throw "plain text"', 'code threw: plain text'],
      ['throw undefined', 'code threw: undefined'],
      ['throw { code: 7 }', 'code threw: {"code":7}'],
      ['throw Symbol("s")', 'code threw: Symbol(s)'],
      ['await Promise.reject(null)', 'code threw: null'],
    ])('should describe a thrown non-Error value (%s)', async (code, message) => {
      await expect(failureOf(code)).resolves.toMatchObject({ reason: 'threw', message });
    });

    it('should turn a stack overflow into a thrown RangeError', async () => {
      const error = await failureOf('function f() { return f(); }\nreturn f();');
      expect(error.message).toMatch(/^code threw: RangeError: Maximum call stack size exceeded/);
    });

    it.each([
      ['return () => 1', 'function'],
      ['return Symbol("s")', 'symbol'],
      ['return 10n', 'bigint'],
      ['const o = {}; o.self = o; return o', 'TypeError: Converting circular structure to JSON'],
      ['return { big: 1n }', 'TypeError: Do not know how to serialize a BigInt'],
    ])('should refuse a value that is not JSON (%s)', async (code, detail) => {
      await expect(failureOf(code)).resolves.toMatchObject({
        reason: 'not_json',
        message: `code returned a value that is not JSON (${detail})`,
      });
    });

    it('should refuse output over the size limit and say how big it was', async () => {
      const error = await failureOf('return "x".repeat(2.3 * 1024 * 1024)');
      expect(error.reason).toBe('too_large');
      expect(error.message).toBe('code output is 2.3 MiB, over the 1 MiB limit');
    });

    it('should measure output in UTF-8 bytes', async () => {
      const error = await failureOf('return "é".repeat(600 * 1024)');
      expect(error.message).toBe('code output is 1.2 MiB, over the 1 MiB limit');
    });

    it('should report code that does not compile', async () => {
      await expect(failureOf('return 1 +')).resolves.toMatchObject({
        reason: 'syntax',
        message: "code does not compile: SyntaxError: Unexpected token '}'",
      });
    });

    it('should refuse a body that closes the wrapper early', async () => {
      await expect(failureOf('}); (function () {')).resolves.toMatchObject({ reason: 'syntax' });
    });
  });

  describe('limits', () => {
    it('should stop an infinite loop at the CPU time limit', async () => {
      const error = await failureOf('while (true) {}', { timeoutMs: 200 });
      expect(error.reason).toBe('cpu_time');
      expect(error.message).toBe('code exceeded its CPU time limit of 200 ms');
    });

    it('should stop an infinite loop of awaits', async () => {
      await expect(failureOf('for (;;) await null;', { timeoutMs: 200 })).resolves.toMatchObject({
        reason: 'cpu_time',
      });
    });

    it('should stop a loop hidden in a getter of the thrown value', async () => {
      const code = 'throw { get message() { for (;;) {} } };';
      await expect(failureOf(code, { timeoutMs: 200 })).resolves.toMatchObject({ reason: 'cpu_time' });
    });

    it('should report a Promise that never settles without waiting for the time limit', async () => {
      const error = await failureOf('await new Promise(() => {});', { timeoutMs: 60_000 });
      expect(error.reason).toBe('never_settled');
      expect(error.message).toMatch(/^code never finished: it awaited a Promise that nothing can settle/);
    });

    it('should stop a memory bomb and run the next call normally', async () => {
      const bomb = 'const list = []; for (;;) list.push({ n: Math.random(), s: "x" + Math.random() });';
      const error = await failureOf(bomb, { timeoutMs: 10_000, memoryMb: 32 });
      expect(error.reason).toBe('memory');
      expect(error.message).toBe('code exceeded its memory limit of 32 MiB');
      await expect(valueOf('return 1 + 1')).resolves.toBe(2);
    });

    it('should stop Atomics.wait at the CPU time limit', async () => {
      const code = 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);';
      await expect(failureOf(code, { timeoutMs: 200 })).resolves.toMatchObject({ reason: 'cpu_time' });
    });

    it('should survive a huge string concatenation', async () => {
      const error = await failureOf('let s = "x"; for (;;) s += s;', { timeoutMs: 5000 });
      expect(['threw', 'memory']).toContain(error.reason);
    });

    it('should handle a sparse Array(1e9) without allocating it', async () => {
      await expect(valueOf('return Array(1e9).length')).resolves.toBe(1e9);
      await expect(failureOf('return Array(1e9)', { timeoutMs: 5000 })).resolves.toBeInstanceOf(CodeRunError);
    });

    it('should cancel a running call when the signal aborts', async () => {
      const controller = new AbortController();
      const pending = failureOf('for (;;) {}', { timeoutMs: 60_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(pending).resolves.toMatchObject({ reason: 'cancelled', message: 'code run was cancelled' });
    });

    it('should run 20 concurrent calls', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) => valueOf('await null; return args.n * 2', { n })),
      );
      expect(results).toEqual(Array.from({ length: 20 }, (_, n) => n * 2));
    });
  });

  describe('console', () => {
    it('should capture console calls by level', async () => {
      const output = await run(
        'console.log("a", {b: 1}, 2n); console.warn("w"); console.error(new Error("e")); return 1',
      );
      expect(output.logs).toEqual([
        { level: 'log', message: 'a {"b":1} 2' },
        { level: 'warn', message: 'w' },
        { level: 'error', message: 'Error: e' },
      ]);
    });

    it('should cap the number and size of console messages', async () => {
      const output = await run('console.info("x".repeat(40)); for (let i = 0; i < 10; i++) console.log(i); return 1');
      expect(output.logs).toEqual([
        { level: 'info', message: 'x'.repeat(40) },
        { level: 'log', message: '0' },
        { level: 'log', message: '1' },
        { level: 'warn', message: '8 more console messages were dropped' },
      ]);
    });

    it('should keep console output of a call stopped at the CPU time limit', async () => {
      const error = await failureOf('console.log("before the loop"); for (;;) {}', { timeoutMs: 200 });
      expect(error.logs).toEqual([{ level: 'log', message: 'before the loop' }]);
    });
  });

  describe('isolation', () => {
    it.each([
      'process',
      'require',
      'module',
      'global',
      'Buffer',
      'setTimeout',
      'setInterval',
      'setImmediate',
      'queueMicrotask',
      'fetch',
      'WebAssembly',
      'FinalizationRegistry',
    ])('should not expose %s', async (name) => {
      await expect(valueOf(`return typeof ${name}`)).resolves.toBe('undefined');
    });

    it('should not let Atomics.waitAsync schedule work after the call', async () => {
      await expect(valueOf('return typeof Atomics.waitAsync')).resolves.toBe('undefined');
    });

    it('should expose only JavaScript builtins on the global object', async () => {
      const names = (await valueOf('return Object.getOwnPropertyNames(globalThis)')) as string[];
      const builtins = new Set(Object.getOwnPropertyNames(globalThis));
      expect(names.filter((name) => !builtins.has(name))).toEqual([]);
      expect(names).not.toEqual(expect.arrayContaining(['process']));
    });

    it('should not reach the host through the constructor chain', async () => {
      await expect(failureOf('return this.constructor.constructor("return process")()')).resolves.toMatchObject({
        message: 'code threw: ReferenceError: process is not defined (line 1)',
      });
    });

    it('should refuse dynamic import', async () => {
      await expect(failureOf('return await import("node:fs")')).resolves.toMatchObject({
        message: 'code threw: Error: Not supported (line 1)',
      });
    });

    it('should allow eval and Function only inside the isolate', async () => {
      const code = 'return [eval("typeof process"), Function("return typeof require")(), eval("1 + 1")]';
      await expect(valueOf(code)).resolves.toEqual(['undefined', 'undefined', 2]);
    });

    it('should not leak prototype pollution to the host or the next call', async () => {
      await run('Object.prototype.polluted = "yes"; Array.prototype.map = null; JSON.parse = null; return 1');
      await expect(valueOf('return [({}).polluted ?? "clean", typeof [].map, args.ok]', { ok: true })).resolves.toEqual(
        ['clean', 'function', true],
      );
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    });

    it('should not let patched builtins spoil the result', async () => {
      const code = 'JSON.stringify = () => "forged"; Promise.prototype.then = () => {}; return { real: true }';
      await expect(valueOf(code)).resolves.toEqual({ real: true });
    });

    it('should not share globals between calls', async () => {
      await run('globalThis.secret = 42; return 1');
      await expect(valueOf('return typeof secret')).resolves.toBe('undefined');
    });
  });
});
