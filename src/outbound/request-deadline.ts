import { Deadline } from '../common/deadline';

/** One abort signal for a whole outbound request: fires on the time limit or when the caller aborts. */
export class RequestDeadline {
  private readonly deadline: Deadline;

  constructor(
    readonly timeoutMs: number,
    external?: AbortSignal,
  ) {
    this.deadline = new Deadline({ parent: external, timeoutMs });
  }

  get signal(): AbortSignal {
    return this.deadline.signal;
  }

  /** Why the signal fired; null while it has not (or was cancelled by the client itself). */
  get reason(): 'timeout' | 'aborted' | null {
    const cause = this.deadline.cause;
    return cause === 'cancelled' ? 'aborted' : cause;
  }

  /** Aborts without blaming time or the caller (e.g. the response grew too large). */
  cancel(): void {
    this.deadline.cancel();
  }

  dispose(): void {
    this.deadline.dispose();
  }
}
