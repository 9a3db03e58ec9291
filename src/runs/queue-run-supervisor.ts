import {
  type BeforeApplicationShutdown,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Port } from '../common/port';
import { Queue, Worker } from 'bullmq';
import { performance } from 'node:perf_hooks';
import type { Principal } from '../common/auth/principal';
import { processOwnerId } from '../common/process-owner';
import { DomainError } from '../common/errors/domain-error';
import type { AppConfig } from '../config/app-config';
import type { ShutdownGrace } from '../config/shutdown-grace';
import { errorMessage } from '../shared/error-text';
import { sleep } from '../shared/sleep';
import type { RunResponse } from './run.dto';
import { FINISHED_STATUSES, type RunStatus } from './run.entity';
import type { RunEventsService } from './run-events.service';
import type { RunLeasesService } from './run-leases.service';
import { RunReconciler } from './run-reconciler';
import { runQueueJobs } from './run-queue-jobs';
import type { RunRedis } from './run-redis';
import {
  type QueuePlace,
  RunHandedBackError,
  RunLeaseLostError,
  type RunExecutor,
  type RunStop,
  type RunSupervisor,
} from './run-supervisor';
import { RunPlaces } from './run-places';
import { RunStopWaiters } from './run-stop-waiters';
import { carriedAnswer, readRunStoppedMessage, runStoppedMessage, type StoppedRun } from './run-stopped-message';
import { LeaseReleases } from './lease-releases';
import { LeaseWatchdog } from './lease-watchdog';
import { type RunJobData, runRecordOf, toRunJobData } from './run-job';
import type { RunRecord } from './run-record';
import type { RunsService } from './runs.service';
import type { RunQueriesService } from './run-queries.service';

const QUEUE_NAME = 'runs';
const CANCELLED = 'cancelled by the client';
/**
 * How often a ?wait=true request looks at the run's row besides being woken when its execution stops: only a
 * message lost otherwise than while this process's subscription was away (a worker that died between storing the
 * end and publishing it) waits for this poll; a resubscription wakes every request at once.
 */
const WAIT_POLL_MS = 5000;
/** The channel on which a run's id is published once its execution stopped: it ended, or waits on a person. */
const RUN_STOPPED = 'run-stopped';
/** A run waiting on a person counts as ended for ?wait=true. */
const STOPPED: readonly RunStatus[] = [...FINISHED_STATUSES, 'waiting'];
/** Its execution stopped (or there is no such run). */
const isStopped = (status: RunStatus | null): boolean => status === null || STOPPED.includes(status);
/** A run executing in this process. */
interface ActiveRun {
  controller: AbortController;
  /** Stops the execution once its lease can no longer be trusted to be held. */
  watchdog: LeaseWatchdog;
}

/**
 * Queue mode: runs wait in a BullMQ queue on Redis and any worker process executes them, FIFO with
 * MAX_CONCURRENT_RUNS per worker. The database is the truth: a worker holds a lease on each run it
 * executes (heartbeat every RUN_LEASE_MS/3), a reconciler re-queues queued or running runs that have
 * neither a live lease nor a job (a dead worker, a job lost while the database was away), and cancel is a status in the row plus a Redis message to whichever worker executes the run. A job is
 * only a wake-up call: a worker that cannot take the run's lease drops it, so a duplicate job is harmless.
 */
export class QueueRunSupervisor
  implements RunSupervisor, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(QueueRunSupervisor.name);
  /** Runs this process executes, by id. */
  private readonly active = new Map<string, ActiveRun>();
  private readonly owner = processOwnerId();
  private readonly timers: NodeJS.Timeout[] = [];
  private queue: Queue<RunJobData> | null = null;
  private worker: Worker<RunJobData> | null = null;
  private stopListening: () => void = () => undefined;
  private stopListeningForStops: () => void = () => undefined;
  private stopHearingResubscriptions: () => void = () => undefined;
  private readonly waiters = new RunStopWaiters();
  private readonly places: RunPlaces;
  private draining = false;
  /** Leases of runs that ended here, let go of together. */
  private readonly releases = new LeaseReleases(
    (runIds) => this.leases.releaseAll(runIds, this.owner),
    (error) => this.logger.warn({ err: error }, 'could not let go of the leases of runs that ended'),
  );

  constructor(
    private readonly runs: RunsService,
    private readonly queries: RunQueriesService,
    private readonly events: RunEventsService,
    private readonly leases: RunLeasesService,
    private readonly redis: RunRedis,
    private readonly executorPort: Port<RunExecutor>,
    private readonly config: AppConfig,
    private readonly grace: ShutdownGrace,
  ) {
    this.places = new RunPlaces(
      config.workflows.maxQueuedRuns,
      (limit) => `Too many runs are being created (${limit}); retry later`,
    );
  }

  private get leaseMs(): number {
    return this.config.runLeaseMs;
  }

  async onApplicationBootstrap(): Promise<void> {
    const prefix = this.redis.prefix;
    this.queue = new Queue<RunJobData>(QUEUE_NAME, {
      connection: this.redis.connect(),
      prefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
    });
    // One subscription for every ?wait=true request of this process, instead of one to each run's events.
    this.stopListeningForStops = await this.redis.listen(this.redis.channel(RUN_STOPPED), (message) => {
      const { runId, answer } = readRunStoppedMessage(message);
      this.waiters.wake(runId, answer);
    });
    this.stopHearingResubscriptions = this.redis.onResubscribed(() => this.waiters.wakeAll());
    if (this.config.role === 'api') return;
    this.stopListening = await this.redis.listen(this.redis.channel('run-cancel'), (runId) =>
      this.active.get(runId)?.controller.abort(new Error(CANCELLED)),
    );
    this.worker = new Worker<RunJobData>(QUEUE_NAME, (job) => this.process(job.data), {
      connection: this.redis.connect(),
      prefix,
      concurrency: this.config.workflows.maxConcurrentRuns,
      // BullMQ's own stalled-job check re-delivers a dead worker's job (also one it died with before taking the
      // run's lease) within about RUN_LEASE_MS, not its default 30 s; the lease decides whether it runs.
      lockDuration: this.leaseMs,
      stalledInterval: Math.max(1, Math.floor(this.leaseMs / 2)),
      maxStalledCount: 1000,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'run worker problem'));
    this.every(this.leaseMs / 3, () => this.heartbeat());
    const reconciler = new RunReconciler(
      this.leases,
      runQueueJobs(this.queue, (runId) => this.enqueue(runId)),
      this.leaseMs,
    );
    this.every(this.leaseMs / 6, async () => {
      for (const runId of await reconciler.reconcile()) {
        this.logger.warn({ runId }, 'queued again a run that had no live worker or job');
      }
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    for (const timer of this.timers) clearInterval(timer);
    this.stopListening();
    const closing = this.worker?.close();
    if (this.active.size > 0) this.logger.warn(`Shutting down: handing back ${this.active.size} run(s)`);
    for (const { controller } of this.active.values()) controller.abort(new RunHandedBackError());
    if (closing) {
      const grace = new AbortController();
      const closed = await Promise.race([
        closing.then(() => true),
        sleep(this.grace.remainingMs, grace.signal).then(
          () => false,
          () => true,
        ),
      ]);
      grace.abort();
      if (!closed) {
        // Executions that ignored the abort: the process ends under them, so their runs go back to the queue now.
        await Promise.all([...this.active.keys()].map((runId) => this.handBack(runId)));
        await this.worker?.close(true);
      }
    }
    await this.releases.flush();
    await this.queue?.close();
  }

  /** After the drain: the ?wait=true requests still answered during it were woken by their runs' stops. */
  onApplicationShutdown(): void {
    this.stopListeningForStops();
    this.stopHearingResubscriptions();
  }

  reserve(): QueuePlace {
    const release = this.places.take(this.draining);
    return {
      // The run goes through Redis: any worker may take it up, so it is stored queued.
      claimSlot: () => false,
      submit: ({ run, awaited }) => {
        release();
        this.enqueue(toRunJobData(run, awaited)).catch((error: unknown) => this.failUnqueued(run.id, error));
      },
      release,
    };
  }

  /**
   * Watches from the call on, so that the stop of a run submitted just before cannot be missed. The answer is the
   * run its worker's message carried (a new run it executed from start to end), else the whole run read once a
   * worker said it stopped; a poll without such word reads its status.
   */
  async waitForRun(runId: string, principal: Principal, timeoutMs: number): Promise<RunResponse> {
    const deadline = Date.now() + timeoutMs;
    const watch = this.waiters.watch(runId);
    try {
      for (;;) {
        const woken = await watch.next(Math.max(0, Math.min(WAIT_POLL_MS, deadline - Date.now())));
        const carried = woken ? carriedAnswer(watch.answer(), principal) : null;
        if (carried) return carried;
        const timeUp = Date.now() >= deadline;
        if (woken || timeUp || isStopped(await this.runs.statusOf(runId))) {
          const run = await this.queries.findVisible(runId, principal);
          if (timeUp || isStopped(run.status)) return this.queries.detail(run);
        }
      }
    } finally {
      watch.close();
    }
  }

  async waitForEnd(runId: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const watch = this.waiters.watch(runId);
    try {
      for (;;) {
        const status = await this.runs.statusOf(runId);
        const left = deadline - Date.now();
        if (isStopped(status) || left <= 0) return isStopped(status);
        await watch.next(Math.min(WAIT_POLL_MS, left));
      }
    } finally {
      watch.close();
    }
  }

  /**
   * Tells the ?wait=true requests of every process that the run's execution stopped (its row says how), with the
   * run as it ended when this process kept a copy of what it wrote.
   */
  private stopped(runId: string, ended?: StoppedRun): void {
    this.redis.publish(this.redis.channel(RUN_STOPPED), runStoppedMessage(runId, ended));
  }

  async cancel(runId: string, principal: Principal): Promise<RunResponse> {
    const run = await this.queries.findVisible(runId, principal);
    if (FINISHED_STATUSES.includes(run.status) || !(await this.runs.cancelUnfinished(runId, CANCELLED))) {
      throw DomainError.conflict(`Run ${runId} has already ended (${(await this.runs.statusOf(runId)) ?? run.status})`);
    }
    // The row already says cancelled: a worker that misses this message stops at its next heartbeat.
    this.redis.publish(this.redis.channel('run-cancel'), runId);
    this.active.get(runId)?.controller.abort(new Error(CANCELLED));
    if (run.status !== 'running') {
      // No execution records how a queued or waiting run ended, so its event log ends here.
      await this.events.appendAndPublish(runId, 'run.finished', {
        run_id: runId,
        status: 'cancelled',
        outputs: null,
        error: CANCELLED,
        usage: null,
      });
      this.stopped(runId);
    }
    return this.queries.get(runId, principal);
  }

  resume(runId: string): void {
    this.enqueue(runId).catch((error: unknown) =>
      // Not lost: the run is `running` without a lease, which the sweep of any worker takes up.
      this.logger.warn({ err: error, runId }, 'could not queue a run whose approvals were decided'),
    );
  }

  load(): { queued: number; running: number } {
    return { queued: this.places.count, running: this.active.size };
  }

  private async enqueue(job: string | RunJobData): Promise<void> {
    await (this.queue as Queue<RunJobData>).add('run', typeof job === 'string' ? { runId: job } : job);
  }

  private async process(job: RunJobData): Promise<void> {
    const { runId } = job;
    if (this.draining) return;
    const leasedAt = performance.now();
    const fresh = await this.takeFresh(job);
    if (!fresh && !(await this.leases.acquire(runId, this.owner, this.leaseMs))) return;
    const executing = this.active.get(runId);
    if (executing) {
      // Queued again while it executes here (its lease had lapsed, a reconciler re-queued it): it goes on here.
      executing.watchdog.trust(leasedAt);
      return;
    }
    const controller = new AbortController();
    const watchdog = new LeaseWatchdog(runId, controller, this.leaseMs, leasedAt, this.logger);
    const run: ActiveRun = { controller, watchdog };
    this.active.set(runId, run);
    let stop: RunStop = 'ended';
    let ended: StoppedRun | undefined;
    // A new run that someone waits for: what it writes is kept, and its end is published with it (see stopped).
    if (fresh && job.awaited) this.queries.keepCopy(fresh);
    try {
      const created = fresh ? { run: fresh, endStored: () => undefined } : undefined;
      stop = await this.executor().execute(runId, controller.signal, created, this.owner);
      const answer = stop === 'ended' ? this.queries.endedHere(runId) : null;
      if (fresh && answer) ended = { userId: fresh.userId, run: answer };
    } catch (error) {
      this.logger.error({ err: error, runId }, 'run execution failed unexpectedly');
    } finally {
      this.queries.forgetCopy(runId);
      run.watchdog.stop();
      this.active.delete(runId);
    }
    if (stop === 'handed_back') {
      await this.handBack(runId);
    } else if (stop === 'ended') {
      this.stopped(runId, ended);
      this.releases.add(runId);
    } else {
      this.stopped(runId);
      await this.leases.release(runId, this.owner);
    }
    // Decided while it was stopping to wait: that decision's job found the lease still held and was dropped.
    if (stop === 'waiting' && (await this.runs.statusOf(runId)) === 'running') await this.enqueue(runId);
  }

  /**
   * A run just created, taken and marked running in one statement, from the copy its job carries: it executes from
   * that copy, unread. Null when the job carries none, or the run is not new any more (another job started it, it
   * was cancelled) or someone holds it: then it is taken and read as any other.
   */
  private async takeFresh(job: RunJobData): Promise<RunRecord | null> {
    const run = runRecordOf(job);
    if (!run || run.status !== 'queued' || run.startedAt !== null) return null;
    const startedAt = new Date();
    if (!(await this.leases.acquireFresh(run.id, this.owner, this.leaseMs, startedAt))) return null;
    return { ...run, status: 'running', startedAt };
  }

  /** Puts a run this worker held back in the queue for another worker; nothing when it was taken over already. */
  private async handBack(runId: string): Promise<void> {
    if (await this.leases.handBack(runId, this.owner, this.leaseMs)) await this.enqueue(runId);
  }

  private executor(): RunExecutor {
    return this.executorPort.get();
  }

  /** Renews, in one statement, the lease of every run executing here; one that was cancelled or taken over stops. */
  private async heartbeat(): Promise<void> {
    const runIds = [...this.active.keys()];
    const sentAt = performance.now();
    const lost = await this.leases.renewAll(runIds, this.owner, this.leaseMs);
    const lostIds = new Set(lost.map((run) => run.runId));
    for (const runId of runIds) {
      const run = this.active.get(runId);
      if (run && !lostIds.has(runId)) run.watchdog.trust(sentAt);
    }
    for (const { runId, status } of lost) {
      this.active.get(runId)?.controller.abort(status === 'cancelled' ? new Error(CANCELLED) : new RunLeaseLostError());
    }
  }

  private every(ms: number, task: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy || this.draining) return;
      busy = true;
      task()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'run lease upkeep failed'))
        .finally(() => (busy = false));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private async failUnqueued(runId: string, error: unknown): Promise<void> {
    this.logger.error({ err: error, runId }, 'could not queue a run');
    try {
      await this.runs.finish(runId, { status: 'failed', error: `could not be queued: ${errorMessage(error)}` });
      await this.events.appendAndPublish(runId, 'run.finished', {
        run_id: runId,
        status: 'failed',
        outputs: null,
        error: 'could not be queued',
        usage: null,
      });
      this.stopped(runId);
    } catch (failure) {
      this.logger.error({ err: failure, runId }, 'could not record a run that could not be queued');
    }
  }
}
