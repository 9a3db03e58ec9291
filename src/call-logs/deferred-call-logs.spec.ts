import { DeferredCallLogs } from './deferred-call-logs';
import type { ToolCallRecord } from './call-record';

const record = (toolId: string | null, callId: string): ToolCallRecord => ({
  toolId,
  toolName: toolId ?? 'unknown',
  toolVersion: toolId ? 1 : null,
  runId: 'run-1',
  nodeId: 'llm',
  callId,
  userId: 'user-1',
  input: '{}',
  output: 'ok',
  status: 'success',
  errorMessage: null,
  durationMs: 1,
  startedAt: new Date(0),
});

interface Batch {
  callIds: Array<string | null>;
  useCounts: Record<string, number>;
}

describe(DeferredCallLogs.name, () => {
  let batches: Batch[];
  let failNext: number;
  let backgroundErrors: unknown[];
  let sut: DeferredCallLogs;

  beforeEach(() => {
    batches = [];
    failNext = 0;
    backgroundErrors = [];
    sut = new DeferredCallLogs(
      (records, useCounts) => {
        if (failNext > 0) {
          failNext -= 1;
          return Promise.reject(new Error('database unavailable'));
        }
        batches.push({ callIds: records.map((item) => item.callId), useCounts: Object.fromEntries(useCounts) });
        return Promise.resolve();
      },
      (error) => backgroundErrors.push(error),
    );
  });

  it('should write nothing until a flush, then every queued call of the run in one batch with use counts summed', async () => {
    sut.add('run-1', record('tool-a', 'c1'));
    sut.add('run-1', record('tool-a', 'c2'));
    sut.add('run-1', record('tool-b', 'c3'));
    sut.add('run-1', record(null, 'c4'));
    sut.add('run-2', record('tool-a', 'other'));
    expect(batches).toEqual([]);

    await sut.flushRun('run-1');

    expect(batches).toEqual([{ callIds: ['c1', 'c2', 'c3', 'c4'], useCounts: { 'tool-a': 2, 'tool-b': 1 } }]);
  });

  it('should write calls queued after a flush in the next batch and never twice', async () => {
    sut.add('run-1', record('tool-a', 'c1'));
    await sut.flushRun('run-1');
    sut.add('run-1', record('tool-a', 'c2'));
    await sut.flushRun('run-1');
    await sut.flushRun('run-1');

    expect(batches.map((batch) => batch.callIds)).toEqual([['c1'], ['c2']]);
  });

  it('should keep the calls of a failed background write and store them with the final flush', async () => {
    sut.add('run-1', record('tool-a', 'c1'));
    failNext = 1;
    const background = sut.flushInBackground('run-1');
    sut.add('run-1', record('tool-a', 'c2'));

    // A failed background write is reported, never rejected: callers may await it on the run's path.
    await expect(background).resolves.toBeUndefined();
    await sut.flushRun('run-1');

    expect(backgroundErrors).toHaveLength(1);
    expect(batches).toEqual([{ callIds: ['c1', 'c2'], useCounts: { 'tool-a': 2 } }]);
  });

  it('should throw from the final flush when the write fails, keeping the calls for a later one', async () => {
    sut.add('run-1', record('tool-a', 'c1'));
    failNext = 1;

    await expect(sut.flushRun('run-1')).rejects.toThrow('database unavailable');
    await sut.flushAll();

    expect(batches.map((batch) => batch.callIds)).toEqual([['c1']]);
  });
});
