/** One abort signal for a whole outbound request: fires on the time limit or when the caller aborts. */
export class RequestDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onExternalAbort = (): void => this.abort('aborted');
  /** Why the signal fired; null while it has not (or was cancelled by the client itself). */
  reason: 'timeout' | 'aborted' | null = null;

  constructor(
    readonly timeoutMs: number,
    private readonly external?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.abort('timeout'), timeoutMs);
    if (external?.aborted) this.abort('aborted');
    else external?.addEventListener('abort', this.onExternalAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts without blaming time or the caller (e.g. the response grew too large). */
  cancel(): void {
    this.controller.abort();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.external?.removeEventListener('abort', this.onExternalAbort);
  }

  private abort(reason: 'timeout' | 'aborted'): void {
    if (this.controller.signal.aborted) return;
    this.reason = reason;
    this.controller.abort();
  }
}
