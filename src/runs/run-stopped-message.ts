import { isAdmin, type Principal } from '../common/auth/principal';
import type { RunResponse } from './run.dto';

/**
 * Longest answer (JSON characters) a run-stopped message carries: every process hears every such message, so a
 * run with bigger outputs is announced by its id alone and the waiting request reads it from the database.
 */
export const MAX_CARRIED_ANSWER_CHARS = 64 * 1024;

/** A run as `?wait=true` answers it, as its worker stored it, with the owner who may see it. */
export interface StoppedRun {
  userId: string;
  run: RunResponse;
}

/**
 * The message published once a run's execution stopped: its id, and after a space, when its worker kept a copy
 * of what it wrote and that copy is small enough, the run as it ended (JSON).
 */
export function runStoppedMessage(runId: string, stopped?: StoppedRun): string {
  if (!stopped) return runId;
  const answer = JSON.stringify(stopped);
  return answer.length > MAX_CARRIED_ANSWER_CHARS ? runId : `${runId} ${answer}`;
}

/** The run id of a run-stopped message, and the answer it carries unparsed (parsed only by a request waiting for it). */
export function readRunStoppedMessage(message: string): { runId: string; answer?: string } {
  const space = message.indexOf(' ');
  return space < 0 ? { runId: message } : { runId: message.slice(0, space), answer: message.slice(space + 1) };
}

/** The run a message carried, when `principal` may see it; null otherwise (the request reads the run itself). */
export function carriedAnswer(answer: string | undefined, principal: Principal): RunResponse | null {
  if (answer === undefined) return null;
  const stopped = JSON.parse(answer) as StoppedRun;
  return isAdmin(principal) || stopped.userId === principal.userId ? stopped.run : null;
}
