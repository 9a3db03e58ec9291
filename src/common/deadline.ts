export type DeadlineCause = 'cancelled' | 'timeout';

export interface DeadlineOptions {
  /** Aborting it aborts this deadline as `cancelled`, with the parent's reason. */
  parent?: AbortSignal;
  /** Time allowed; none: only the parent or `cancel` can abort. */
  timeoutMs?: number;
  /** The abort reason for a timeout. Default a `TimeoutError` naming the limit. */
  timeoutReason?: () => unknown;
}

/**
 * One abort signal for one piece of work (a call, an attempt, a loop): it aborts when the parent does
 * (`cancelled`) or when its time runs out (`timeout`), whichever comes first.
 *
 * Each piece of work gets a signal of its own, disposed of when the work ends: listeners that libraries
 * add to it (and never remove) go away with it, and `dispose` removes the one listener on the parent.
 * Never hand a long-lived signal to a library, nor combine one with `AbortSignal.any`: both keep every
 * finished call reachable from it.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal | undefined;
  readonly #timeoutReason: () => unknown;
  readonly #onParentAbort = (): void => this.#abort('cancelled', this.#parent?.reason);
  #timer: NodeJS.Timeout | undefined;
  readonly #timeoutMs: number | undefined;
  #endsAt = Infinity;
  #cause: DeadlineCause | null = null;

  constructor(options: DeadlineOptions = {}) {
    this.#parent = options.parent;
    this.#timeoutMs = options.timeoutMs;
    this.#timeoutReason = options.timeoutReason ?? (() => timeoutError(this.#timeoutMs ?? 0));
    if (this.#parent?.aborted) this.#onParentAbort();
    else this.#parent?.addEventListener('abort', this.#onParentAbort, { once: true });
    this.#startTimer();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the signal aborted; null while it has not, or when `cancel` aborted it. */
  get cause(): DeadlineCause | null {
    return this.#cause;
  }

  /** Time left before the limit; Infinity without one. */
  get remainingMs(): number {
    return Math.max(0, this.#endsAt - performance.now());
  }

  /** Starts the time limit over (e.g. a silence limit after each chunk received). */
  restart(): void {
    if (this.#timer === undefined || this.signal.aborted) return;
    // The same timer re-armed, not a new one: a stream restarts it at every event.
    this.#endsAt = performance.now() + Math.max(0, this.#timeoutMs ?? 0);
    this.#timer.refresh();
  }

  /** Aborts without blaming the parent or the time (the work is over, or no longer wanted). */
  cancel(reason?: unknown): void {
    if (this.signal.aborted) return;
    clearTimeout(this.#timer);
    this.#controller.abort(reason);
  }

  /** Stops the timer and removes the listener on the parent; call it when the work ends. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }

  #startTimer(): void {
    if (this.#timeoutMs === undefined || this.signal.aborted) return;
    this.#endsAt = performance.now() + Math.max(0, this.#timeoutMs);
    this.#timer = setTimeout(() => this.#abort('timeout', this.#timeoutReason()), Math.max(0, this.#timeoutMs));
  }

  #abort(cause: DeadlineCause, reason: unknown): void {
    if (this.signal.aborted) return;
    this.#cause = cause;
    clearTimeout(this.#timer);
    this.#controller.abort(reason);
  }
}

function timeoutError(timeoutMs: number): Error {
  const error = new Error(`timed out after ${timeoutMs} ms`);
  error.name = 'TimeoutError';
  return error;
}
