import { adminPrincipal, userPrincipal } from '../../test/factories/run.factory';
import type { RunResponse } from './run.dto';
import {
  carriedAnswer,
  MAX_CARRIED_ANSWER_CHARS,
  readRunStoppedMessage,
  runStoppedMessage,
} from './run-stopped-message';

describe('run-stopped message', () => {
  const run = { id: 'run-1', status: 'succeeded', outputs: { answer: 'Hi.' } } as unknown as RunResponse;

  it('should carry the run as it ended after its id, for its owner and an admin only', () => {
    const sut = readRunStoppedMessage(runStoppedMessage('run-1', { userId: 'user-1', run }));

    expect(sut.runId).toBe('run-1');
    expect(carriedAnswer(sut.answer, userPrincipal('user-1'))).toEqual(run);
    expect(carriedAnswer(sut.answer, adminPrincipal())).toEqual(run);
    expect(carriedAnswer(sut.answer, userPrincipal('user-2'))).toBeNull();
  });

  it('should carry the id alone without a run, or with one too big to send to every process', () => {
    const big = { ...run, outputs: { answer: 'x'.repeat(MAX_CARRIED_ANSWER_CHARS) } } as unknown as RunResponse;

    expect(readRunStoppedMessage(runStoppedMessage('run-1'))).toEqual({ runId: 'run-1' });
    expect(readRunStoppedMessage(runStoppedMessage('run-1', { userId: 'user-1', run: big }))).toEqual({
      runId: 'run-1',
    });
    expect(carriedAnswer(undefined, adminPrincipal())).toBeNull();
  });
});
