import { DomainError } from '../common/errors/domain-error';

const SHUTTING_DOWN_RETRY_AFTER_SECONDS = 5;
const QUEUE_FULL_RETRY_AFTER_SECONDS = 5;

/**
 * The places of runs being created that a supervisor hands out through `reserve()`: none while it drains, none past
 * `maxQueuedRuns` (counting the runs already waiting in this process, none in queue mode); each place is given back
 * once, when its run is submitted or the creation fails.
 */
export class RunPlaces {
  private taken = 0;

  constructor(
    private readonly limit: number,
    private readonly fullMessage: (limit: number) => string,
  ) {}

  /** Places taken and not given back yet. */
  get count(): number {
    return this.taken;
  }

  /** Takes a place; the function returned gives it back (later calls do nothing). */
  take(draining: boolean, waiting = 0): () => void {
    if (draining) {
      throw DomainError.unavailable(
        'The service is shutting down and accepts no new runs; retry shortly',
        SHUTTING_DOWN_RETRY_AFTER_SECONDS,
      );
    }
    if (waiting + this.taken >= this.limit) {
      throw DomainError.tooManyRequests(this.fullMessage(this.limit), QUEUE_FULL_RETRY_AFTER_SECONDS);
    }
    this.taken += 1;
    let held = true;
    return () => {
      if (held) this.taken -= 1;
      held = false;
    };
  }
}
