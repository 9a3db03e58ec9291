export interface FairSlotsOptions {
  /** Calls running at once, over all owners. */
  slots: number;
  /** Calls one owner may run at once; the rest of their calls wait while others are served. */
  perOwner: number;
}

interface Queued<T> {
  owner: string;
  job: T;
}

/**
 * Admission for sandbox calls: at most `slots` run at once and at most `perOwner` per owner.
 * A freed slot goes to the next owner in turn that has a waiting call and is under their cap, so
 * one owner's burst waits behind their own calls, never in front of everyone else's.
 */
export class FairSlots<T> {
  private readonly waiting = new Map<string, T[]>();
  private readonly running = new Map<string, number>();
  private runningTotal = 0;

  constructor(
    private readonly options: FairSlotsOptions,
    private readonly start: (job: T, owner: string) => void,
  ) {}

  /** Queues a call; `first` puts it ahead of its owner's other waiting calls (a retry keeps its place). */
  enqueue(owner: string, job: T, first = false): void {
    const queue = this.waiting.get(owner);
    if (!queue) this.waiting.set(owner, [job]);
    else if (first) queue.unshift(job);
    else queue.push(job);
    this.dispatch();
  }

  /** Drops a call that has not started (cancelled, gave up waiting); false when it is not waiting. */
  remove(owner: string, job: T): boolean {
    const queue = this.waiting.get(owner);
    const index = queue?.indexOf(job) ?? -1;
    if (!queue || index < 0) return false;
    queue.splice(index, 1);
    if (queue.length === 0) this.waiting.delete(owner);
    return true;
  }

  /** A started call of `owner` is over; its slot goes to the next call in turn. */
  release(owner: string): void {
    const count = this.running.get(owner) ?? 0;
    if (count === 0) return;
    if (count === 1) this.running.delete(owner);
    else this.running.set(owner, count - 1);
    this.runningTotal -= 1;
    this.dispatch();
  }

  /** Every waiting call, removed; for shutdown. */
  drain(): T[] {
    const jobs = [...this.waiting.values()].flat();
    this.waiting.clear();
    return jobs;
  }

  get runningCount(): number {
    return this.runningTotal;
  }

  get waitingCount(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  private dispatch(): void {
    while (this.runningTotal < this.options.slots) {
      const next = this.next();
      if (!next) return;
      this.runningTotal += 1;
      this.running.set(next.owner, (this.running.get(next.owner) ?? 0) + 1);
      this.start(next.job, next.owner);
    }
  }

  /** The first owner in turn under their cap; served owners go to the back of the turn order. */
  private next(): Queued<T> | undefined {
    for (const [owner, queue] of this.waiting) {
      if ((this.running.get(owner) ?? 0) >= this.options.perOwner) continue;
      const job = queue.shift() as T;
      this.waiting.delete(owner);
      if (queue.length > 0) this.waiting.set(owner, queue);
      return { owner, job };
    }
    return undefined;
  }
}
