import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Port } from '../common/port';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { bindToActiveTrace } from '../common/tracing';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ShutdownGrace } from '../config/shutdown-grace';
import type { RunResponse } from './run.dto';
import { FINISHED_STATUSES } from './run.entity';
import { EmbeddedProcessLock } from './embedded-process-lock';
import { RunEventsService } from './run-events.service';
import {
  type CreatedHere,
  INTERRUPTED,
  type NewRunSubmission,
  type QueuePlace,
  RUN_EXECUTOR,
  RunHandedBackError,
  type RunExecutor,
  type RunSupervisor,
} from './run-supervisor';
import { RunPlaces } from './run-places';
import { RunsService } from './runs.service';
import { RunQueriesService } from './run-queries.service';

interface ActiveRun {
  runId: string;
  execute: (signal: AbortSignal) => Promise<unknown>;
  controller: AbortController;
  done: Promise<void>;
  end: () => void;
  /** Resolves once its execution stored how it ended (see CreatedHere.endStored). */
  endStored: Promise<void>;
}

const CANCELLED = 'cancelled by the client';
const CANCEL_WAIT_MS = 10_000;
/** After the grace period, how long handed-back runs get to stop. */
const ABORT_WAIT_MS = 5_000;

/**
 * The embedded run supervisor: a FIFO queue in this process with MAX_CONCURRENT_RUNS slots; RUN_EXECUTOR
 * executes each run from the database. It refuses to start on a database another live embedded process holds
 * (EmbeddedProcessLock). At boot, runs a dead process left queued or running are resumed (from their checkpoint). On shutdown it drains: no new runs, queued ones stay queued for the next start,
 * running ones get what is left of the shutdown's grace period (ShutdownGrace) to finish and are then handed back
 * (left resumable, not failed).
 */
@Injectable()
export class InProcessRunSupervisor implements RunSupervisor, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(InProcessRunSupervisor.name);
  private readonly active = new Map<string, ActiveRun>();
  private readonly waiting: ActiveRun[] = [];
  private running = 0;
  /** Places held by requests that are creating their run and have not submitted it yet. */
  private readonly places: RunPlaces;
  /** Slots claimed by places (claimSlot) whose run is being created: its run starts at once when submitted. */
  private claimed = 0;
  private draining = false;

  constructor(
    private readonly runs: RunsService,
    private readonly queries: RunQueriesService,
    private readonly events: RunEventsService,
    @Inject(RUN_EXECUTOR) private readonly executorPort: Port<RunExecutor>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lock: EmbeddedProcessLock,
    private readonly grace: ShutdownGrace,
  ) {
    this.places = new RunPlaces(
      config.workflows.maxQueuedRuns,
      (limit) => `The run queue is full (${limit} runs waiting to start); retry later`,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    // Alone on its database, or it would run again (and fail as interrupted) what another live process executes.
    await this.lock.acquire();
    // A child run is part of its parent's tool call: the parent's resume decides about that call.
    const children = await this.runs.failUnfinishedChildren(INTERRUPTED);
    for (const runId of children) await this.events.appendStored(runId, 'run.finished', interruptedEvent(runId));
    const resumable = await this.runs.unfinishedTopLevel();
    for (const runId of resumable) this.enqueue(runId);
    if (resumable.length > 0) this.logger.warn(`Resuming ${resumable.length} unfinished run(s)`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    // Queued runs stay queued in the database; the next start resumes them.
    for (const entry of this.waiting.splice(0)) {
      this.active.delete(entry.runId);
      entry.end();
    }
    // What is left of the shutdown's grace period: other hooks (test runs) may have waited part of it already.
    const graceMs = this.grace.remainingMs;
    if (this.active.size > 0) {
      this.logger.warn(`Shutting down: waiting up to ${graceMs} ms for ${this.active.size} run(s)`);
    }
    if (!(await this.allEnded(graceMs))) {
      for (const entry of this.active.values()) entry.controller.abort(new RunHandedBackError());
      await this.allEnded(ABORT_WAIT_MS);
    }
    await this.events.flushAll();
  }

  reserve(): QueuePlace {
    const givePlaceBack = this.places.take(this.draining, this.waiting.length);
    let held = true;
    let claimed = false;
    const giveBack = () => {
      givePlaceBack();
      held = false;
    };
    return {
      claimSlot: () => {
        if (!held || claimed || this.waiting.length > 0 || !this.slotFree()) return false;
        claimed = true;
        this.claimed += 1;
        return true;
      },
      submit: (submission) => {
        giveBack();
        const slot = claimed;
        if (claimed) this.claimed -= 1;
        claimed = false;
        this.submitCreated(submission, slot);
      },
      release: () => {
        giveBack();
        if (!claimed) return;
        claimed = false;
        this.claimed -= 1;
        this.pump();
      },
    };
  }

  resume(runId: string): void {
    // A run still executing here (it is just stopping to wait) is enqueued again once it stopped: see start().
    this.enqueue(runId);
  }

  /**
   * A run created here executes here, from the copy its starter made: its event log opens empty now, and the answer
   * to a `?wait=true` comes from what it writes (RunQueriesService.keepCopy), not read back.
   */
  private submitCreated({ run, tools, awaited }: NewRunSubmission, claimed: boolean): void {
    this.events.open(run.id);
    if (awaited) this.queries.keepCopy(run);
    try {
      this.enqueue(run.id, claimed, { run, tools });
    } catch (error) {
      this.queries.forgetCopy(run.id);
      throw error;
    }
  }

  /** `claimed`: the run holds the slot its place claimed and starts now (unless the service drains). */
  private enqueue(runId: string, claimed = false, created?: Omit<CreatedHere, 'endStored'>): void {
    if (this.active.has(runId)) {
      if (claimed) this.pump();
      return;
    }
    let end: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (end = resolve));
    let endStored: () => void = () => undefined;
    const stored = new Promise<void>((resolve) => (endStored = resolve));
    const here = created && { ...created, endStored: () => endStored() };
    // The run's spans join the trace of the request that submitted it, not that of the run before it in the queue.
    const execute = bindToActiveTrace((signal: AbortSignal) => this.executor().execute(runId, signal, here));
    const entry: ActiveRun = { runId, execute, controller: new AbortController(), done, end, endStored: stored };
    this.active.set(runId, entry);
    if (claimed && !this.draining) {
      this.start(entry, true);
      return;
    }
    this.waiting.push(entry);
    this.pump();
  }

  private executor(): RunExecutor {
    return this.executorPort.get();
  }

  async waitForEnd(runId: string, timeoutMs: number): Promise<boolean> {
    const active = this.active.get(runId);
    if (!active) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([active.done.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async waitForRun(runId: string, principal: Principal, timeoutMs: number): Promise<RunResponse> {
    const endStored = this.active.get(runId)?.endStored;
    // A run executing here answers once its end is stored, while its last events are still being written.
    const ended = this.waitForEnd(runId, timeoutMs);
    await (endStored ? Promise.race([ended, endStored]) : ended);
    return this.queries.endedHere(runId) ?? (await this.queries.get(runId, principal));
  }

  async cancel(runId: string, principal: Principal): Promise<RunResponse> {
    const run = await this.queries.findVisible(runId, principal);
    // A run executing here is stopped even when its row already says otherwise (another process recorded its end).
    const active = this.active.get(runId);
    if (active) {
      this.abort(active, new Error(CANCELLED));
      await this.waitForEnd(runId, CANCEL_WAIT_MS);
    } else if (FINISHED_STATUSES.includes(run.status) || !(await this.runs.cancelUnfinished(runId, CANCELLED))) {
      throw DomainError.conflict(`Run ${runId} has already ended (${(await this.runs.statusOf(runId)) ?? run.status})`);
    } else {
      // No execution records how a run that was not executing (waiting for approval) ended: its log ends here.
      await this.endLog(runId);
    }
    return this.queries.get(runId, principal);
  }

  private async endLog(runId: string): Promise<void> {
    const finished = { run_id: runId, status: 'cancelled', outputs: null, error: CANCELLED, usage: null };
    if (this.events.isLive(runId)) {
      this.events.emit(runId, 'run.finished', finished);
      await this.events.close(runId);
    } else {
      await this.events.appendStored(runId, 'run.finished', finished);
    }
  }

  load(): { queued: number; running: number } {
    return { queued: this.waiting.length, running: this.running };
  }

  /** Aborts a run; a queued one starts at once so that its execution records how it ended. */
  private abort(entry: ActiveRun, reason: Error): void {
    entry.controller.abort(reason);
    const position = this.waiting.indexOf(entry);
    if (position >= 0) {
      this.waiting.splice(position, 1);
      this.start(entry, false);
    }
  }

  private async allEnded(timeoutMs: number): Promise<boolean> {
    const ended = await Promise.all([...this.active.keys()].map((runId) => this.waitForEnd(runId, timeoutMs)));
    return ended.every(Boolean);
  }

  private pump(): void {
    while (this.slotFree() && this.waiting.length > 0) {
      this.start(this.waiting.shift() as ActiveRun, true);
    }
  }

  /** Slots claimed by places that have not submitted their run yet count as taken. */
  private slotFree(): boolean {
    return !this.draining && this.running + this.claimed < this.config.workflows.maxConcurrentRuns;
  }

  private start(entry: ActiveRun, holdsSlot: boolean): void {
    if (holdsSlot) this.running += 1;
    entry
      .execute(entry.controller.signal)
      .catch((error: unknown) => {
        this.logger.error({ err: error, runId: entry.runId }, 'run execution failed unexpectedly');
        return 'ended' as const;
      })
      .then(async (stop) => {
        if (holdsSlot) this.running -= 1;
        this.active.delete(entry.runId);
        entry.end();
        // Decided while it was stopping to wait: the decision found it still active, so it goes on from here.
        if (stop === 'waiting' && !this.draining && (await this.runs.statusOf(entry.runId)) === 'running') {
          this.enqueue(entry.runId);
        }
        this.pump();
      })
      .catch((error: unknown) => this.logger.error({ err: error, runId: entry.runId }, 'could not resume a run'));
  }
}

const interruptedEvent = (runId: string): Record<string, unknown> => ({
  run_id: runId,
  status: 'failed',
  outputs: null,
  error: INTERRUPTED,
  usage: null,
});
