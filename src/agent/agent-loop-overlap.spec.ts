import { type ApprovalGate, runAgentLoop } from './agent-loop';
import type { ToolDefinition } from '../shared/tool-definition';
import { call, setup, tool } from '../../test/support/agent-loop-harness';

/** Lets the loop go as far as it can without the writes the test holds back. */
const ticks = async () => {
  for (let tick = 0; tick < 20; tick++) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * Calls that may run twice without harm (`read_only`, `idempotent`, no person's decision) start while the writes
 * before them are stored (see RoundAnswering); any other call waits for them, and a failed write fails the loop.
 */
describe(`${runAgentLoop.name}: calls that start while earlier writes are stored`, () => {
  /** A loop of one round of `calls` whose model response's checkpoint is stored when the test says so. */
  const roundStoredLater = (calls: ReturnType<typeof call>[], overrides: { approvals?: ApprovalGate } = {}) => {
    let settle: { resolve: () => void; reject: (error: Error) => void } = { resolve: () => [], reject: () => [] };
    const planStored = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    const executed: string[] = [];
    const record: ToolDefinition['execute'] = ({ call: made }) => (
      executed.push(made.name),
      Promise.resolve({ response: 'ok' })
    );
    const tools = [
      tool('search', 'read_only', record),
      tool('put', 'idempotent', record),
      tool('write', 'mutating', record),
    ];
    const { provider, run } = setup([{ toolCalls: calls }, { content: 'Done.' }], tools, {
      ...overrides,
      onCheckpoint: (state) => (state.round?.calls.every((item) => !item.answer) ? planStored : Promise.resolve()),
    });
    let ended = false;
    const result = run().finally(() => (ended = true));
    result.catch(() => undefined);
    return { provider, executed, result, ended: () => ended, settle };
  };

  it('should run calls that may run twice while their model response is stored, and go on once it is', async () => {
    const sut = roundStoredLater([call('search', { q: 'a' }), call('put', { q: 'b' })]);

    await ticks();

    expect(sut.executed).toEqual(['search', 'put']);
    expect(sut.provider.requests).toHaveLength(1);
    expect(sut.ended()).toBe(false);
    sut.settle.resolve();
    await expect(sut.result).resolves.toMatchObject({ output: 'Done.' });
    expect(sut.provider.requests).toHaveLength(2);
  });

  it('should start no call before its model response is stored when one may change things', async () => {
    const sut = roundStoredLater([call('search', { q: 'a' }), call('write', { q: 'b' })]);

    await ticks();

    expect(sut.executed).toEqual([]);
    sut.settle.resolve();
    await expect(sut.result).resolves.toMatchObject({ output: 'Done.' });
    expect(sut.executed).toEqual(['search', 'write']);
  });

  it('should start no call before its model response is stored when a person decided on one', async () => {
    const approvals: ApprovalGate = { check: () => Promise.resolve({ approved: true }) };
    const sut = roundStoredLater([call('search', { q: 'a' })], { approvals });

    await ticks();

    expect(sut.executed).toEqual([]);
    sut.settle.resolve();
    await expect(sut.result).resolves.toMatchObject({ output: 'Done.' });
    expect(sut.executed).toEqual(['search']);
  });

  it('should fail without calling the model again when a model response failed to store while its calls ran', async () => {
    const sut = roundStoredLater([call('search', { q: 'a' })]);

    await ticks();

    expect(sut.executed).toEqual(['search']);
    expect(sut.ended()).toBe(false);
    sut.settle.reject(new Error('database down'));
    await expect(sut.result).rejects.toMatchObject({ stopReason: 'error', message: 'database down' });
    expect(sut.provider.requests).toHaveLength(1);
  });

  /** Two rounds of one call each (`search` first), the first round's result stored when the test says so. */
  const resultStoredLater = (second: 'search' | 'write') => {
    let settle: { resolve: () => void; reject: (error: Error) => void } = { resolve: () => [], reject: () => [] };
    const resultStored = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    const executed: string[] = [];
    const record: ToolDefinition['execute'] = ({ params }) => (
      executed.push(String(params.q)),
      Promise.resolve({ response: 'ok' })
    );
    const first = call('search', { q: 'a' });
    const { provider, run } = setup(
      [{ toolCalls: [first] }, { toolCalls: [call(second, { q: 'b' })] }, { content: 'Done.' }],
      [tool('search', 'read_only', record), tool('write', 'mutating', record)],
      {
        onCheckpoint: (state) =>
          state.round?.calls[0].call.id === first.id && state.round.calls[0].answer ? resultStored : Promise.resolve(),
      },
    );
    const result = run();
    result.catch(() => undefined);
    return { provider, executed, result, settle };
  };

  it("should run a read-only round while the last round's results are stored, and go on once they are", async () => {
    const sut = resultStoredLater('search');

    await ticks();

    expect(sut.executed).toEqual(['a', 'b']);
    expect(sut.provider.requests).toHaveLength(2);
    sut.settle.resolve();
    await expect(sut.result).resolves.toMatchObject({ output: 'Done.' });
    expect(sut.provider.requests).toHaveLength(3);
  });

  it("should start a mutating call only once the last round's results are stored", async () => {
    const sut = resultStoredLater('write');

    await ticks();

    expect(sut.executed).toEqual(['a']);
    sut.settle.resolve();
    await expect(sut.result).resolves.toMatchObject({ output: 'Done.' });
    expect(sut.executed).toEqual(['a', 'b']);
  });

  it("should fail without calling the model again when the last round's results failed to store", async () => {
    const sut = resultStoredLater('search');

    await ticks();
    sut.settle.reject(new Error('database down'));

    await expect(sut.result).rejects.toMatchObject({ stopReason: 'error', message: 'database down' });
    expect(sut.provider.requests).toHaveLength(2);
  });
});
