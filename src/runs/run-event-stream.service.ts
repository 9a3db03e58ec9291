import { type BeforeApplicationShutdown, Injectable, type MessageEvent } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { Principal } from '../common/auth/principal';
import { FINISHED_STATUSES } from './run.entity';
import type { RunEvent } from './run-event-types';
import { RunEventsService } from './run-events.service';
import { RunLeasesService } from './run-leases.service';
import { RunQueriesService } from './run-queries.service';

/**
 * A comment line every so often keeps proxies from closing a quiet stream; the stream of a run that finished
 * then also asks whether its log is complete (its worker died before storing run.finished).
 */
const HEARTBEAT_MS = 15_000;

/** When a client should reconnect to a stream this process ends because it is stopping (to another process). */
export const RECONNECT_AFTER_MS = 1000;

const toMessage = (event: RunEvent): MessageEvent => ({
  id: String(event.seq),
  type: event.type,
  data: { ...event.data, at: event.at },
});

/** The event stream of a run its caller may see, as Server-Sent Events; ended with a retry hint on shutdown. */
@Injectable()
export class RunEventStreamService implements BeforeApplicationShutdown {
  /** Open SSE streams, ended on shutdown (with a retry hint) so that the HTTP server can close. */
  private readonly streams = new Set<() => void>();
  /** Set when shutdown begins: a stream opened from then on ends at once, telling its client to reconnect. */
  private stopping = false;

  constructor(
    private readonly runs: RunQueriesService,
    private readonly events: RunEventsService,
    private readonly leases: RunLeasesService,
  ) {}

  /** Fails with not-found before any byte is sent, so the problem filter still answers 404. */
  async open(runId: string, principal: Principal, afterSeq: number): Promise<Observable<MessageEvent>> {
    await this.runs.findVisible(runId, principal);
    // Its log is complete once the run has finished and no worker still holds it (a worker stores run.finished,
    // then lets go of the run; a dead worker's lease runs out).
    return this.stream(runId, afterSeq, async () => {
      const run = await this.runs.findVisible(runId, principal);
      return FINISHED_STATUSES.includes(run.status) && !(await this.leases.isHeld(runId));
    });
  }

  /**
   * The events after `afterSeq` as Server-Sent Events: past ones first, then live ones, with a heartbeat
   * comment while it is quiet; completes after run.finished. `logComplete` says the run has finished and
   * nothing more will be added to its stored log (no worker still holds it): it ends the stream of a run that
   * finished without a stored run.finished (e.g. its worker died) and does not execute here. A run whose row
   * says finished while its worker still stores the end of its log gets run.finished live, once stored.
   */
  stream(runId: string, afterSeq: number, logComplete: () => Promise<boolean>): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      let stop: () => void = () => undefined;
      let lastSeq = afterSeq;
      let started = false;
      const forward = (event: RunEvent) => {
        if (subscriber.closed || event.seq <= lastSeq) return;
        lastSeq = event.seq;
        subscriber.next(toMessage(event));
        if (event.type === 'run.finished') subscriber.complete();
      };
      const endIfComplete = async (atHeartbeat: boolean) => {
        if (subscriber.closed || !(await logComplete()) || this.events.isLive(runId)) return;
        if (this.events.fansOut) {
          // Read after the run was seen complete: what its worker stored last is in it.
          for (const event of await this.events.storedAfter(runId, lastSeq)) forward(event);
          // A run cancelled while queued gets its run.finished from the api process just after its row changed:
          // it comes live, or the next heartbeat ends the stream.
          if (!atHeartbeat) return;
        }
        subscriber.complete();
      };
      // Its id is the last one delivered, so that the client's Last-Event-ID still says where to resume.
      const end = () => {
        if (subscriber.closed) return;
        subscriber.next({ id: String(lastSeq), retry: RECONNECT_AFTER_MS, comment: 'shutting down: reconnect' });
        subscriber.complete();
      };
      if (this.stopping) return end();
      const heartbeat = setInterval(() => {
        subscriber.next({ comment: 'keep-alive' });
        if (started) endIfComplete(true).catch((error: unknown) => subscriber.error(error));
      }, HEARTBEAT_MS);
      this.streams.add(end);
      const start = async () => {
        stop = await this.events.subscribe(runId, afterSeq, forward);
        if (subscriber.closed) return stop();
        started = true;
        await endIfComplete(false);
      };
      start().catch((error: unknown) => subscriber.error(error));
      return () => {
        clearInterval(heartbeat);
        this.streams.delete(end);
        stop();
      };
    });
  }

  /**
   * Ends every open event stream, and from now on every new one at once, with a retry hint: its client
   * reconnects (to another process) and resumes from its Last-Event-ID; the HTTP server can close.
   */
  beforeApplicationShutdown(): void {
    this.stopping = true;
    for (const end of [...this.streams]) end();
  }
}
