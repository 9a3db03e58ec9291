/**
 * The one grace period of a shutdown (SHUTDOWN_GRACE_MS), shared by every shutdown hook that waits for work to
 * end. Nest runs the hooks of different modules one after another: when each waited a grace period of its own
 * (the test runs', then the runs'), a shutdown lasted a multiple of it. The period starts at the first `begin`
 * (the signal) or the first read of `remainingMs`; each hook waits only what is left of it.
 */
export class ShutdownGrace {
  #endsAt: number | null = null;

  constructor(readonly graceMs: number) {}

  /** Starts the grace period, once; later calls keep the first start. */
  begin(): void {
    this.#endsAt ??= Date.now() + this.graceMs;
  }

  /** What is left of the grace period (starting it if nobody has); 0 once it is over. */
  get remainingMs(): number {
    this.begin();
    return Math.max(0, (this.#endsAt ?? 0) - Date.now());
  }
}
