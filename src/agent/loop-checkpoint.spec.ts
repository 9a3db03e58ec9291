import type { ToolEffect } from '../shared/tool-types';
import { type LoopRound, resumeActions, type RoundCall } from './loop-checkpoint';

const effects: Record<string, ToolEffect> = {
  search: 'read_only',
  put: 'idempotent',
  write: 'mutating',
  drop: 'dangerous',
};

let counter = 0;
const item = (name: string, answered = false, skipped = false): RoundCall => ({
  call: { id: `call_${++counter}`, name, arguments: '{}' },
  verdict: 'ok',
  ...(skipped ? { skipResponse: 'Not executed' } : {}),
  ...(answered ? { answer: { status: 'success', response: 'ok', durationMs: 1 } } : {}),
});

const actionsOf = (...calls: RoundCall[]) => {
  const round: LoopRound = { calls, malformed: [] };
  return resumeActions(
    round,
    (name) => effects[name],
    (call) => call.skipResponse === undefined && effects[call.call.name] === 'read_only',
  );
};

describe(resumeActions.name, () => {
  it('should keep answered calls and never run them again', () => {
    expect(actionsOf(item('write', true), item('search', true))).toEqual(['answered', 'answered']);
  });

  it('should run a repeatable call that was executing again', () => {
    expect(actionsOf(item('search'))).toEqual(['run']);
    expect(actionsOf(item('put'))).toEqual(['run']);
  });

  it('should not repeat a mutating or dangerous call that was executing', () => {
    expect(actionsOf(item('write'))).toEqual(['unknown_outcome']);
    expect(actionsOf(item('write', true), item('drop'))).toEqual(['answered', 'unknown_outcome']);
  });

  it('should treat a call of a tool no longer known as not repeatable', () => {
    expect(actionsOf(item('gone'))).toEqual(['unknown_outcome']);
  });

  it('should run the calls of later batches, which had not started', () => {
    expect(actionsOf(item('write'), item('drop'), item('write'))).toEqual(['unknown_outcome', 'run', 'run']);
    expect(actionsOf(item('search'), item('search', true), item('write'))).toEqual(['run', 'answered', 'run']);
  });

  it('should run calls the loop answers itself', () => {
    expect(actionsOf(item('write', false, true), item('write'))).toEqual(['run', 'unknown_outcome']);
  });
});
