import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { adminPrincipal, newRun } from '../../test/factories/run.factory';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { EmbeddedProcessLock } from './embedded-process-lock';
import { providedPort } from '../common/port';
import { ShutdownGrace } from '../config/shutdown-grace';
import { InProcessRunSupervisor } from './in-process-run-supervisor';
import { RunEventEntity } from './run-event.entity';
import { RunEventsService } from './run-events.service';
import { RUN_EXECUTOR, RunHandedBackError, type RunExecutor, type RunStop } from './run-supervisor';
import { RunsService } from './runs.service';
import { RunQueriesService } from './run-queries.service';

/** A run execution the test ends by hand; it records how it ended like the workflow runner does. */
class ControlledExecution {
  started = false;
  startedAborted = false;
  abortReason: unknown = null;
  private release: () => void = () => undefined;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  constructor(
    private readonly runs: RunsService,
    private readonly runId: string,
  ) {}

  readonly execute = async (signal: AbortSignal): Promise<RunStop> => {
    this.started = true;
    this.startedAborted = signal.aborted;
    if (!signal.aborted) {
      await this.runs.markRunning(this.runId);
      await Promise.race([this.released, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
    }
    this.abortReason = signal.aborted ? signal.reason : null;
    if (signal.reason instanceof RunHandedBackError) return 'handed_back';
    await this.runs.finish(this.runId, signal.aborted ? { status: 'cancelled' } : { status: 'succeeded' });
    return 'ended';
  };

  finish(): void {
    this.release();
  }
}

/** RUN_EXECUTOR for the tests: each run id gets a ControlledExecution, created on its first execution. */
class ControlledExecutor implements RunExecutor {
  readonly executions = new Map<string, ControlledExecution>();
  runs!: RunsService;

  of(runId: string): ControlledExecution {
    let execution = this.executions.get(runId);
    if (!execution) {
      execution = new ControlledExecution(this.runs, runId);
      this.executions.set(runId, execution);
    }
    return execution;
  }

  execute(runId: string, signal: AbortSignal): Promise<RunStop> {
    return this.of(runId).execute(signal);
  }
}

describe(InProcessRunSupervisor.name, () => {
  let moduleRef: TestingModule;
  let runs: RunsService;
  let executor: ControlledExecutor;
  let sut: InProcessRunSupervisor;

  const submitted = async () => {
    const run = await runs.create(newRun());
    const execution = executor.of(run.id);
    sut.reserve().submit({ run, awaited: false });
    return { id: run.id, execution };
  };

  /** The supervisor over a fresh database, with SHUTDOWN_GRACE_MS `graceMs`. */
  const build = async (graceMs = '50') => {
    executor = new ControlledExecutor();
    moduleRef = await runsTestingModule(
      [
        RunsService,
        RunQueriesService,
        RunEventsService,
        EmbeddedProcessLock,
        InProcessRunSupervisor,
        { provide: RUN_EXECUTOR, useValue: providedPort(RUN_EXECUTOR, executor) },
      ],
      {
        MAX_CONCURRENT_RUNS: '2',
        MAX_QUEUED_RUNS: '2',
        SHUTDOWN_GRACE_MS: graceMs,
      },
    );
    runs = moduleRef.get(RunsService);
    executor.runs = runs;
    sut = moduleRef.get(InProcessRunSupervisor);
  };

  beforeEach(() => build());

  afterEach(() => moduleRef.close());

  it('should run at most MAX_CONCURRENT_RUNS at once and start the queued ones in arrival order', async () => {
    const [first, second, third, fourth] = [await submitted(), await submitted(), await submitted(), await submitted()];

    expect([first, second, third, fourth].map((run) => run.execution.started)).toEqual([true, true, false, false]);
    second.execution.finish();
    await expect(sut.waitForEnd(second.id, 5_000)).resolves.toBe(true);
    expect([third, fourth].map((run) => run.execution.started)).toEqual([true, false]);

    for (const run of [first, third, fourth]) run.execution.finish();
    await Promise.all([first, third, fourth].map((run) => sut.waitForEnd(run.id, 5_000)));
    expect(fourth.execution.started).toBe(true);
  });

  it('should refuse a place past MAX_QUEUED_RUNS queued runs, not counting running ones', async () => {
    const runs = [await submitted(), await submitted(), await submitted()];
    const held = sut.reserve();

    expect(() => sut.reserve()).toThrow(
      expect.objectContaining({ code: 'too_many_requests', retryAfterSeconds: expect.any(Number) as number }),
    );
    held.release();
    const place = sut.reserve();
    place.release();
    runs[0].execution.finish();
    await sut.waitForEnd(runs[0].id, 5_000);
    sut.reserve().release();
    for (const run of runs.slice(1)) run.execution.finish();
  });

  it('should hold a claimed slot for the run its place submits, and claim none while no slot is free', async () => {
    const claiming = sut.reserve();
    expect(claiming.claimSlot()).toBe(true);
    // The claimed slot counts as taken: of two slots, one is left for a run submitted meanwhile.
    const other = await submitted();
    expect(other.execution.started).toBe(true);
    const blocked = sut.reserve();
    expect(blocked.claimSlot()).toBe(false);
    const queued = await runs.create(newRun());
    blocked.submit({ run: queued, awaited: false });
    expect(executor.of(queued.id).started).toBe(false);

    const run = await runs.create(newRun({ startsNow: true }));
    claiming.submit({ run, awaited: false });
    expect(executor.of(run.id).started).toBe(true);
    expect(executor.of(queued.id).started).toBe(false);

    for (const id of [other.id, run.id, queued.id]) executor.of(id).finish();
    await Promise.all([other.id, run.id, queued.id].map((id) => sut.waitForEnd(id, 5_000)));
    expect(executor.of(queued.id).started).toBe(true);
  });

  it('should give a claimed slot back when its place is released without a run', async () => {
    const claiming = sut.reserve();
    expect(claiming.claimSlot()).toBe(true);
    const other = await submitted();
    const queued = await submitted();
    expect([other.execution.started, queued.execution.started]).toEqual([true, false]);

    claiming.release();

    expect(queued.execution.started).toBe(true);
    for (const run of [other, queued]) run.execution.finish();
    await Promise.all([other, queued].map((run) => sut.waitForEnd(run.id, 5_000)));
  });

  it('should cancel a queued run at once, without waiting for a slot', async () => {
    const running = [await submitted(), await submitted()];
    const queued = await submitted();

    const run = await sut.cancel(queued.id, adminPrincipal());

    expect(run.status).toBe('cancelled');
    expect(queued.execution.startedAborted).toBe(true);
    for (const other of running) other.execution.finish();
  });

  it('should abort a running run on cancel and answer with its final state', async () => {
    const { id, execution } = await submitted();

    const run = await sut.cancel(id, adminPrincipal());

    expect(run.status).toBe('cancelled');
    expect(execution.startedAborted).toBe(false);
  });

  it('should refuse to cancel a run that has ended', async () => {
    const { id, execution } = await submitted();
    execution.finish();
    await sut.waitForEnd(id, 5_000);

    await expect(sut.cancel(id, adminPrincipal())).rejects.toMatchObject({ code: 'conflict' });
  });

  it('should resume the top-level runs a dead process left unfinished, and fail its unfinished child runs', async () => {
    const running = await runs.create(newRun());
    await runs.markRunning(running.id);
    const queued = await runs.create(newRun());
    const child = await runs.create(newRun({ parentRunId: running.id, depth: 1 }));
    await runs.markRunning(child.id);
    await moduleRef.get(RunEventsService).appendStored(child.id, 'run.started', { run_id: child.id });

    await sut.onApplicationBootstrap();

    expect([running, queued].map((run) => executor.of(run.id).started)).toEqual([true, true]);
    expect(executor.executions.has(child.id)).toBe(false);
    await expect(moduleRef.get(RunQueriesService).get(child.id, adminPrincipal())).resolves.toMatchObject({
      status: 'failed',
      error: 'interrupted',
    });
    const events = await moduleRef.get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity)).find({
      where: { runId: child.id },
      order: { seq: 'ASC' },
    });
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [1, 'run.started'],
      [2, 'run.finished'],
    ]);
    expect(events[1].data).toMatchObject({ status: 'failed', error: 'interrupted' });
    for (const run of [running, queued]) executor.of(run.id).finish();
    await Promise.all([running, queued].map((run) => sut.waitForEnd(run.id, 5_000)));
    await expect(moduleRef.get(RunQueriesService).get(running.id, adminPrincipal())).resolves.toMatchObject({
      status: 'succeeded',
    });
  });

  describe('on shutdown', () => {
    it('should refuse new runs with 503 while draining', async () => {
      const draining = sut.beforeApplicationShutdown();

      expect(() => sut.reserve()).toThrow(
        expect.objectContaining({ code: 'unavailable', retryAfterSeconds: expect.any(Number) as number }),
      );
      await draining;
    });

    it('should let a run that ends within the grace period finish', async () => {
      const { id, execution } = await submitted();

      const draining = sut.beforeApplicationShutdown();
      execution.finish();
      await draining;

      await expect(moduleRef.get(RunQueriesService).get(id, adminPrincipal())).resolves.toMatchObject({
        status: 'succeeded',
      });
      expect(execution.abortReason).toBeNull();
    });

    it('should wait only what another shutdown hook left of the one grace period', async () => {
      await moduleRef.close();
      await build('60000');
      const { execution } = await submitted();
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      try {
        // Another module's hook (the test runs') waited the whole grace period first.
        moduleRef.get(ShutdownGrace).begin();
        jest.advanceTimersByTime(60_000);
        let drained = false;

        const draining = sut.beforeApplicationShutdown().then(() => (drained = true));
        await jest.advanceTimersByTimeAsync(1_000);

        expect(execution.abortReason).toBeInstanceOf(RunHandedBackError);
        expect(drained).toBe(true);
        await draining;
      } finally {
        jest.useRealTimers();
      }
    });

    it('should leave queued runs queued and hand running ones back after the grace period, unfinished', async () => {
      const running = [await submitted(), await submitted()];
      const queued = await submitted();

      await sut.beforeApplicationShutdown();

      for (const run of running) {
        expect(run.execution.abortReason).toBeInstanceOf(RunHandedBackError);
        await expect(moduleRef.get(RunQueriesService).get(run.id, adminPrincipal())).resolves.toMatchObject({
          status: 'running',
          error: null,
        });
      }
      expect(queued.execution.started).toBe(false);
      await expect(moduleRef.get(RunQueriesService).get(queued.id, adminPrincipal())).resolves.toMatchObject({
        status: 'queued',
      });
      await expect(sut.waitForEnd(queued.id, 5_000)).resolves.toBe(true);
    });
  });
});
