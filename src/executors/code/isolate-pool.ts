import ivm from 'isolated-vm';

export interface IsolatePoolOptions {
  /** Isolates leased at once; further acquires wait. More than the CPU count is fine: each runs on
   * its own thread, and a call that is not spinning needs little CPU to finish within its limit. */
  maxConcurrent: number;
  /** Idle isolates kept per memory size. */
  maxIdlePerSize: number;
  /** Calls after which an isolate is retired, bounding anything a long-lived heap could accumulate. */
  maxCallsPerIsolate: number;
}

export interface IsolateLease {
  readonly isolate: ivm.Isolate;
  readonly memoryMb: number;
  calls: number;
  /**
   * Set by the current holder. V8 reports some allocations (`new Array(1e8).fill(0)`) as a fatal
   * out-of-memory that no limit catches; isolated-vm then parks the isolate's thread for good and
   * calls this instead of aborting the process, which is left unsound: the holder must end it.
   */
  onCatastrophicError?: (message: string) => void;
}

interface Waiter {
  grant(): void;
  fail(error: Error): void;
}

export class PoolClosedError extends Error {
  constructor() {
    super('isolate pool is closed');
    this.name = 'PoolClosedError';
  }
}

const disposeQuietly = (isolate: ivm.Isolate): void => {
  if (!isolate.isDisposed) isolate.dispose();
};

/**
 * Isolates keyed by memory limit (fixed at creation), handed out one call at a time. Creating an
 * isolate blocks the event loop for ~4 ms, a context on the isolate's own thread ~1 ms, so callers
 * take a fresh context per call from a reused isolate.
 */
export class IsolatePool {
  private readonly idle = new Map<number, IsolateLease[]>();
  private readonly leased = new Set<IsolateLease>();
  private readonly waiters: Waiter[] = [];
  private freeSlots: number;
  private closed = false;

  constructor(private readonly options: IsolatePoolOptions) {
    this.freeSlots = options.maxConcurrent;
  }

  async acquire(memoryMb: number, signal?: AbortSignal): Promise<IsolateLease> {
    await this.takeSlot(signal);
    try {
      const lease = this.idle.get(memoryMb)?.pop() ?? this.create(memoryMb);
      this.leased.add(lease);
      return lease;
    } catch (error) {
      this.giveSlot();
      throw error;
    }
  }

  /** `reusable: false` after anything abnormal: a stopped call may leave queued work in the isolate. */
  release(lease: IsolateLease, reusable: boolean): void {
    if (!this.leased.delete(lease)) return;
    lease.calls += 1;
    lease.onCatastrophicError = undefined;
    const idle = this.idle.get(lease.memoryMb) ?? [];
    const keep =
      reusable &&
      !this.closed &&
      !lease.isolate.isDisposed &&
      lease.calls < this.options.maxCallsPerIsolate &&
      idle.length < this.options.maxIdlePerSize;
    if (keep) {
      idle.push(lease);
      this.idle.set(lease.memoryMb, idle);
    } else {
      disposeQuietly(lease.isolate);
    }
    this.giveSlot();
  }

  get activeCount(): number {
    return this.leased.size;
  }

  get idleCount(): number {
    let count = 0;
    for (const list of this.idle.values()) count += list.length;
    return count;
  }

  /** Disposes every isolate, including leased ones (their running calls fail), and fails waiters. */
  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) list.forEach((lease) => disposeQuietly(lease.isolate));
    this.idle.clear();
    this.leased.forEach((lease) => disposeQuietly(lease.isolate));
    this.waiters.splice(0).forEach((waiter) => waiter.fail(new PoolClosedError()));
  }

  private create(memoryMb: number): IsolateLease {
    const lease: IsolateLease = {
      isolate: new ivm.Isolate({
        memoryLimit: memoryMb,
        onCatastrophicError: (message) => lease.onCatastrophicError?.(message),
      }),
      memoryMb,
      calls: 0,
    };
    return lease;
  }

  private takeSlot(signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    signal?.throwIfAborted();
    if (this.freeSlots > 0) {
      this.freeSlots -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        const reason: unknown = signal?.reason;
        reject(reason instanceof Error ? reason : new Error('aborted'));
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private giveSlot(): void {
    const next = this.waiters.shift();
    if (next) next.grant();
    else this.freeSlots += 1;
  }
}
