import type { RoundCall } from './loop-checkpoint';
import { phaseOf, RoundState, RoundTransitionError } from './round-state';

const item = (id: string, overrides: Partial<RoundCall> = {}): RoundCall => ({
  call: { id, name: 'tool', arguments: '{}' },
  verdict: 'ok',
  ...overrides,
});

describe(RoundState.name, () => {
  it('should run every call of a new round without asking how to resume', () => {
    const decide = jest.fn();
    const sut = RoundState.planned([item('a'), item('b')], []);

    sut.start(decide);

    expect(decide).not.toHaveBeenCalled();
    expect(sut.calls.map((call) => sut.actionOf(call))).toEqual(['run', 'run']);
  });

  it('should ask once, as it starts, what a resumed round does with each call', () => {
    const calls = [item('a'), item('b')];
    const decide = jest.fn().mockReturnValue(['unknown_outcome', 'run']);
    const sut = RoundState.resumed({ calls, malformed: [] });

    sut.start(decide);

    expect(decide).toHaveBeenCalledTimes(1);
    expect(sut.actionOf(calls[0])).toBe('unknown_outcome');
    expect(sut.actionOf(calls[1])).toBe('run');
    expect(() => sut.start(decide)).toThrow('already started');
  });

  it('should take a call through approval to its answer', () => {
    const call = item('a');
    const sut = RoundState.planned([call], []);

    sut.awaitApproval(call);
    expect(phaseOf(call)).toBe('awaiting_approval');
    expect(sut.runnable()).toEqual([]);
    sut.approve(call, '{"edited":true}');
    expect(phaseOf(call)).toBe('approved');
    expect(call.approvedArguments).toBe('{"edited":true}');
    sut.answer(call, { status: 'success', response: 'done', durationMs: 3 });

    expect(phaseOf(call)).toBe('answered');
    expect(call.answer).toEqual({ status: 'success', response: 'done', durationMs: 3 });
  });

  it('should answer a rejected call without its approval mark', () => {
    const call = item('a');
    const sut = RoundState.planned([call], []);
    sut.awaitApproval(call);

    sut.reject(call, 'No.');

    expect(call.approval).toBeUndefined();
    expect(call.answer).toEqual({ status: 'rejected', response: 'No.', durationMs: 0 });
  });

  it('should refuse to change an answered or skipped call', () => {
    const answered = item('a', { answer: { status: 'success', response: 'x', durationMs: 1 } });
    const skipped = item('b', { skipResponse: 'Not executed.' });
    const sut = RoundState.planned([answered, skipped], []);

    expect(() => sut.answer(answered, { status: 'error', response: 'y', durationMs: 1 })).toThrow(RoundTransitionError);
    expect(() => sut.approve(skipped)).toThrow('cannot go from skipped to approved');
  });

  it('should keep a checkpoint copy apart from later changes', () => {
    const call = item('a');
    const sut = RoundState.planned([call], []);
    const stored = sut.toCheckpoint();

    sut.answer(call, { status: 'success', response: 'done', durationMs: 1 });

    expect(stored.calls[0].answer).toBeUndefined();
  });

  it('should tell when a call was refused as one repetition too many', () => {
    expect(RoundState.planned([item('a')], []).stoppedRepetition).toBe(false);
    expect(RoundState.planned([item('a', { verdict: 'stop', skipResponse: 'x' })], []).stoppedRepetition).toBe(true);
  });
});
