import { readSandboxState } from './sandbox-state';

describe(readSandboxState.name, () => {
  it('should read a settled outcome with its logs', () => {
    const raw = { outcome: { status: 'ok', json: '1' }, logs: [{ level: 'info', message: 'hi' }], droppedLogs: 0 };
    expect(readSandboxState(raw)).toEqual(raw);
  });

  it('should read a pending outcome', () => {
    expect(readSandboxState({ outcome: undefined, logs: [], droppedLogs: 2 })).toEqual({
      outcome: undefined,
      logs: [],
      droppedLogs: 2,
    });
  });

  it('should drop a line number that is not a positive integer', () => {
    const state = readSandboxState({ outcome: { status: 'threw', message: 'x', line: -1 }, logs: [], droppedLogs: 0 });
    expect(state.outcome).toEqual({ status: 'threw', message: 'x', line: undefined });
  });

  it('should skip malformed log entries', () => {
    const raw = { outcome: undefined, logs: [{ level: 'shout', message: 'x' }, 'text'], droppedLogs: 0 };
    expect(readSandboxState(raw).logs).toEqual([]);
  });

  it.each([null, 'text', { logs: [] }, { outcome: { status: 'ok' }, logs: [], droppedLogs: 0 }])(
    'should refuse a malformed state: %p',
    (raw) => {
      expect(() => readSandboxState(raw)).toThrow(/malformed/);
    },
  );
});
