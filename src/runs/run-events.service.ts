import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Between, MoreThan, Repository } from 'typeorm';
import { isDuplicateKey } from '../common/owned-queries';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { RunEventEntity, toEventRows } from './run-event.entity';
import { bulkInsert } from '../common/plain-sql';
import type { RunEvent, RunEventType } from './run-event-types';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { RUN_REDIS, type RunRedis } from './run-redis';
import { nextTurn } from '../shared/next-turn';

/** Told of one run's events, in order. */
export type Listener = (event: RunEvent) => void;
/** Told of every event of every run as it is emitted (the port metrics use); must not throw. */
export type RunEventObserver = (runId: string, event: RunEvent) => void;

interface LiveRun {
  /** Events up to this seq are stored by an earlier execution of the run (before a restart) and not held here. */
  base: number;
  events: RunEvent[];
  listeners: Set<Listener>;
  unsaved: RunEvent[];
  writing: Promise<void>;
  timer: NodeJS.Timeout | null;
  /** Set by close(): forgets the log after RETAIN_FINISHED_MS unless the run executes here again (resumed). */
  forget: NodeJS.Timeout | null;
}

/** How long a finished run's events stay in memory for late subscribers before only the database serves them. */
const RETAIN_FINISHED_MS = 30_000;
/**
 * And at most this many finished runs' logs, oldest forgotten first, so that the memory they hold does not grow
 * with the run rate (11–14 KB a run of the soak's workflow: ~14 MB at the bound; at 150 runs/s, 30 s is 4,500 runs).
 */
export const RETAIN_FINISHED_RUNS = 1000;
const FLUSH_DELAY_MS = 50;
/**
 * The event that closes the run writes the log at the event loop's next turn (after what the current one set going,
 * such as the `?wait=true` answer), with everything before it in one INSERT; the others wait up to FLUSH_DELAY_MS for
 * company (a short run is two or three INSERTs, not one per node). Live subscribers get every event at once whatever
 * its type.
 */
const WRITTEN_AT_ONCE: ReadonlySet<RunEventType> = new Set(['run.finished']);

/**
 * The event log of each run: numbered in order, pushed to live subscribers at once, and written to
 * `run_events` in small batches (a token stream would otherwise be one INSERT per token).
 */
@Injectable()
export class RunEventsService implements OnApplicationShutdown {
  private readonly logger = new Logger(RunEventsService.name);
  private readonly live = new Map<string, LiveRun>();
  /** Runs whose log is closed but still held (see RETAIN_FINISHED_RUNS), oldest first. */
  private readonly finished = new Set<string>();
  private readonly observers = new Set<RunEventObserver>();
  /**
   * Embedded mode: subscribers of a run that is not executing here (queued, or waiting for a person after a
   * restart). They get events appended to its stored log, and join the live log when the run starts here.
   */
  private readonly waiting = new Map<string, Set<Listener>>();

  constructor(
    @InjectRepository(RunEventEntity) private readonly events: Repository<RunEventEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(RUN_REDIS) private readonly redis: RunRedis | null = null,
  ) {}

  /** Whether this process holds the run's log (running here, or finished moments ago). */
  isLive(runId: string): boolean {
    return this.live.has(runId);
  }

  /** Adds an observer of all runs' events; returns its removal. */
  observe(observer: RunEventObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  open(runId: string, base = 0): void {
    if (!this.live.has(runId)) {
      this.live.set(runId, {
        base,
        events: [],
        listeners: new Set(),
        unsaved: [],
        writing: Promise.resolve(),
        timer: null,
        forget: null,
      });
      const waiters = this.waiting.get(runId);
      this.waiting.delete(runId);
      for (const listener of waiters ?? []) this.live.get(runId)?.listeners.add(listener);
    }
    this.keep(runId);
  }

  /** Opens the log of a run that may have executed before (resumed after a restart): numbering goes on after its stored events. */
  async openStored(runId: string): Promise<void> {
    const last = (await this.events.maximum('seq', { runId })) ?? 0;
    const run = this.live.get(runId);
    if (!run) return this.open(runId, last);
    this.keep(runId);
    // Another process added to the stored log while this one still held it (a decision on a waiting run):
    // those events join the log here, so that numbering goes on after them and live subscribers see them.
    const known = run.base + run.events.length;
    if (last <= known) return;
    for (const event of await this.storedAfter(runId, known)) {
      run.events.push(event);
      for (const listener of run.listeners) listener(event);
    }
  }

  emit(runId: string, type: RunEventType, data: Record<string, unknown>): RunEvent {
    this.open(runId);
    const run = this.live.get(runId) as LiveRun;
    const event: RunEvent = { seq: run.base + run.events.length + 1, type, data, at: new Date().toISOString() };
    run.events.push(event);
    run.unsaved.push(event);
    for (const listener of run.listeners) listener(event);
    for (const observer of this.observers) observer(runId, event);
    // flush() never rejects: write() logs its own failures.
    if (WRITTEN_AT_ONCE.has(type)) void nextTurn().then(() => this.flush(runId));
    else run.timer ??= setTimeout(() => void this.flush(runId), FLUSH_DELAY_MS);
    return event;
  }

  /** Writes what is pending; resolves when every event emitted so far is stored. */
  async flush(runId: string): Promise<void> {
    const run = this.live.get(runId);
    if (!run) return;
    if (run.timer) clearTimeout(run.timer);
    run.timer = null;
    // The batch is taken when the previous write ends: events emitted during a slow write join the next one.
    if (run.unsaved.length > 0)
      run.writing = run.writing.then(() => this.writeAndPublish(runId, run.unsaved.splice(0)));
    await run.writing;
  }

  /** Resolves when every event emitted so far, of every run, is stored. */
  async flushAll(): Promise<void> {
    await Promise.all([...this.live.keys()].map((runId) => this.flush(runId)));
  }

  /** Adds an event to the stored log of a run that does not execute here (e.g. one a dead process left behind). */
  async appendStored(runId: string, type: RunEventType, data: Record<string, unknown>): Promise<RunEvent> {
    const last = await this.events.maximum('seq', { runId });
    const event: RunEvent = { seq: (last ?? 0) + 1, type, data, at: new Date().toISOString() };
    await this.write(runId, [event]);
    for (const listener of this.waiting.get(runId) ?? []) listener(event);
    return event;
  }

  /**
   * A run stops to wait for a person: every event is stored, before its row says waiting, so that a decision's
   * event is numbered after them. Embedded, the log stays open here: live streams go on with the run once it
   * resumes in this process; in queue mode it may resume anywhere, and the log is closed.
   */
  async pause(runId: string): Promise<void> {
    if (this.fansOut) await this.close(runId);
    else await this.flush(runId);
  }

  /** Stores the rest and keeps the log in memory a little longer for clients that join late. */
  async close(runId: string): Promise<void> {
    await this.flush(runId);
    const run = this.live.get(runId);
    if (!run) return;
    if (run.forget) clearTimeout(run.forget);
    run.forget = setTimeout(() => this.forget(runId), RETAIN_FINISHED_MS);
    run.forget.unref();
    this.finished.delete(runId);
    this.finished.add(runId);
    if (this.finished.size > RETAIN_FINISHED_RUNS) this.forget(this.finished.values().next().value!);
  }

  private keep(runId: string): void {
    const run = this.live.get(runId);
    if (run?.forget) clearTimeout(run.forget);
    if (run) run.forget = null;
    this.finished.delete(runId);
  }

  /** Only the database serves a closed log from now on. */
  private forget(runId: string): void {
    const run = this.live.get(runId);
    if (run?.forget) clearTimeout(run.forget);
    this.finished.delete(runId);
    this.live.delete(runId);
  }

  /**
   * Events after `afterSeq`: the past ones first (from memory or the database), then live ones until the
   * run finishes. `onEvent` returning false, or `stop()`, ends the subscription.
   */
  async subscribe(runId: string, afterSeq: number, onEvent: Listener): Promise<() => void> {
    const run = this.live.get(runId);
    if (run) {
      // Events of an earlier execution (before a restart) are only in the database; events emitted meanwhile wait in memory.
      if (run.base > afterSeq) {
        for (const event of await this.storedAfter(runId, afterSeq, run.base)) onEvent(event);
      }
      let last = Math.max(afterSeq, run.base);
      const deliver = (event: RunEvent) => {
        if (event.seq <= last) return;
        last = event.seq;
        onEvent(event);
      };
      for (const event of run.events) deliver(event);
      run.listeners.add(deliver);
      return () => run.listeners.delete(deliver);
    }
    if (this.redis) return this.subscribeRemote(runId, afterSeq, onEvent);
    return this.subscribeWaiting(runId, afterSeq, onEvent);
  }

  /**
   * Embedded mode, a run this process does not execute now: its stored events, then what is appended to its
   * log or emitted once it starts here. Notifications that come during the read wait for it, so order holds.
   */
  private async subscribeWaiting(runId: string, afterSeq: number, onEvent: Listener): Promise<() => void> {
    let last = afterSeq;
    const deliver = (event: RunEvent) => {
      if (event.seq <= last) return;
      last = event.seq;
      onEvent(event);
    };
    let early: RunEvent[] | null = [];
    const listener = (event: RunEvent) => (early ? early.push(event) : deliver(event));
    const waiters = this.waiting.get(runId) ?? new Set<Listener>();
    waiters.add(listener);
    this.waiting.set(runId, waiters);
    const stop = () => {
      waiters.delete(listener);
      if (waiters.size === 0 && this.waiting.get(runId) === waiters) this.waiting.delete(runId);
      this.live.get(runId)?.listeners.delete(listener);
    };
    let stored: RunEvent[];
    try {
      stored = await this.storedAfter(runId, afterSeq);
    } catch (error) {
      stop();
      throw error;
    }
    // What came while the log was read follows it, in order; only a subscriber that got the log hears it.
    for (const event of [...stored, ...early.sort((a, b) => a.seq - b.seq)]) deliver(event);
    early = null;
    return stop;
  }

  /** Whether a run's events reach this process live from other processes (queue mode). */
  get fansOut(): boolean {
    return this.redis !== null;
  }

  /** The Redis channel of a run's live events. */
  channelOf(runId: string): string {
    return (this.redis as RunRedis).channel(`run-events:${runId}`);
  }

  /** Publishes an event another process stored (e.g. run.finished of a run cancelled while queued). */
  async appendAndPublish(runId: string, type: RunEventType, data: Record<string, unknown>): Promise<void> {
    const event = await this.appendStored(runId, type, data);
    this.redis?.publish(this.channelOf(runId), JSON.stringify([event]));
  }

  /**
   * Stores a batch of events; in queue mode then publishes it to Redis as one message, an array in order.
   * Published only once stored, so that a process that hears of an event can read every event before it.
   */
  private async writeAndPublish(runId: string, batch: RunEvent[]): Promise<void> {
    await this.write(runId, batch);
    this.redis?.publish(this.channelOf(runId), JSON.stringify(batch));
  }

  /**
   * A run executing in another process: stored events first, then live ones from Redis. The channel is
   * subscribed before the database is read, and a batch is published only after it was stored, so the events
   * before a live one are in the database: the client sees every seq once, in order.
   */
  private async subscribeRemote(runId: string, afterSeq: number, onEvent: Listener): Promise<() => void> {
    let last = afterSeq;
    let stopped = false;
    const deliver = (event: RunEvent) => {
      if (stopped || event.seq <= last) return;
      last = event.seq;
      onEvent(event);
    };
    const catchUp = async (before: number) => {
      for (const event of await this.storedAfter(runId, last, before - 1)) deliver(event);
    };
    let chain = Promise.resolve();
    const stop = await (this.redis as RunRedis).listen(this.channelOf(runId), (message) => {
      // A process of the previous release (during a rolling upgrade) publishes one event per message.
      const parsed = JSON.parse(message) as RunEvent[] | RunEvent;
      const events = Array.isArray(parsed) ? parsed : [parsed];
      chain = chain
        .then(async () => {
          for (const event of events) {
            if (event.seq > last + 1) await catchUp(event.seq);
            deliver(event);
          }
        })
        .catch((error: unknown) => this.logger.warn({ err: error, runId }, 'could not catch up on run events'));
    });
    chain = chain.then(async () => {
      for (const event of await this.storedAfter(runId, afterSeq)) deliver(event);
    });
    await chain;
    return () => {
      stopped = true;
      stop();
    };
  }

  /** The stored events after `afterSeq` (up to `upToSeq`), in order. */
  async storedAfter(runId: string, afterSeq: number, upToSeq?: number): Promise<RunEvent[]> {
    const seq = upToSeq === undefined ? MoreThan(afterSeq) : Between(afterSeq + 1, upToSeq);
    const stored = await this.events.find({ where: { runId, seq }, order: { seq: 'ASC' } });
    return stored.map((entity) => ({
      seq: entity.seq,
      type: entity.type as RunEventType,
      data: entity.data,
      at: entity.createdAt.toISOString(),
    }));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flushAll();
  }

  private async write(runId: string, batch: RunEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const rows = toEventRows(runId, batch);
    try {
      await retryDatabaseWrite(() => bulkInsert(this.events.manager, RunEventEntity, rows), {
        budgetMs: this.config.runDbRetryMs,
        alreadyDone: isDuplicateKey,
      });
    } catch (error) {
      // Losing stored events must not fail the run; live subscribers already have them.
      this.logger.error({ err: error, runId, events: batch.length }, 'could not store run events');
    }
  }
}
