import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newRun } from '../factories/run.factory';
import { runsTestingModule } from './runs-testing-module';
import { dropRedisPrefix, testRedisUrl, uniqueRedisPrefix } from './test-redis';
import { providedPort } from '../../src/common/port';
import type { AppConfig } from '../../src/config/app-config';
import { APP_CONFIG } from '../../src/config/config.module';
import { ShutdownGrace } from '../../src/config/shutdown-grace';
import { QueueRunSupervisor } from '../../src/runs/queue-run-supervisor';
import { RunEntity } from '../../src/runs/run.entity';
import { RunEventsService } from '../../src/runs/run-events.service';
import { RunLeasesService } from '../../src/runs/run-leases.service';
import { RUN_REDIS, RunRedis } from '../../src/runs/run-redis';
import { RUN_EXECUTOR, type RunExecutor, RunHandedBackError, type RunStop } from '../../src/runs/run-supervisor';
import { RunsService } from '../../src/runs/runs.service';
import type { RunRecord } from '../../src/runs/run-record';
import { RunQueriesService } from '../../src/runs/run-queries.service';

/** Executions the test ends by hand; each records how it ended like the real executor does. */
export class ScriptedExecutor implements RunExecutor {
  readonly started: Array<{ runId: string; worker: string }> = [];
  readonly reasons: unknown[] = [];
  /** Why executions stopped unfinished. */
  readonly handedBack: unknown[] = [];
  /** Executions whose end was not stored: their worker no longer held the run's lease. */
  readonly fenced: string[] = [];
  /** The lease each execution was told it executes under. */
  readonly leaseOwners: Array<string | undefined> = [];
  /** The copy of the run each execution was given (a new run's, from its job), if any. */
  readonly copies: Array<RunRecord | undefined> = [];
  executing = 0;
  maxExecuting = 0;
  private readonly releases = new Map<string, () => void>();

  constructor(private readonly runs: RunsService) {}

  forWorker(worker: string): RunExecutor {
    return {
      execute: (runId, signal, created, leaseOwner) => {
        this.copies.push(created?.run);
        return this.executeOn(worker, runId, signal, leaseOwner);
      },
    };
  }

  execute(runId: string, signal: AbortSignal): Promise<RunStop> {
    return this.executeOn('unknown', runId, signal);
  }

  private async executeOn(worker: string, runId: string, signal: AbortSignal, leaseOwner?: string): Promise<RunStop> {
    this.started.push({ runId, worker });
    this.leaseOwners.push(leaseOwner);
    this.executing += 1;
    this.maxExecuting = Math.max(this.maxExecuting, this.executing);
    try {
      await this.runs.markRunning(runId);
      const released = new Promise<void>((resolve) => this.releases.set(runId, resolve));
      await Promise.race([released, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
      if (signal.reason instanceof RunHandedBackError) {
        this.handedBack.push(signal.reason);
        return 'handed_back';
      }
      this.reasons.push(signal.reason);
      const end = signal.aborted ? ({ status: 'cancelled' } as const) : ({ status: 'succeeded' } as const);
      if (await this.runs.finish(runId, end, leaseOwner)) return 'ended';
      this.fenced.push(runId);
      return 'handed_back';
    } finally {
      this.executing -= 1;
    }
  }

  finish(runId: string): void {
    this.releases.get(runId)?.();
  }
}

/** What a spec of QueueRunSupervisor works with; the fields are those of the test running now. */
export interface QueueSupervisorHarness {
  moduleRef: TestingModule;
  runs: RunsService;
  rows: Repository<RunEntity>;
  executor: ScriptedExecutor;
  /** The Redis connection of each supervisor started, in order. */
  connections: RunRedis[];
  /** A supervisor standing for a process of the role, on its own Redis connection, bootstrapped. */
  supervisor(role: 'api' | 'worker', name?: string): Promise<QueueRunSupervisor>;
  /** A new run, submitted through `api` (nobody waits for it). */
  submitted(api: QueueRunSupervisor): Promise<string>;
  row(id: string): Promise<RunEntity>;
}

/**
 * Supervisors of api and worker processes over one in-memory runs database and a Redis prefix of their own per
 * test (call it inside a `describeWithRedis()` block: it registers the block's beforeEach and afterEach).
 */
export function queueSupervisorHarness(): QueueSupervisorHarness {
  const url = testRedisUrl() as string;
  let prefix: string;
  const started: QueueRunSupervisor[] = [];
  const harness = {
    connections: [] as RunRedis[],
    async supervisor(role: 'api' | 'worker', name: string = role): Promise<QueueRunSupervisor> {
      const config = { ...harness.moduleRef.get<AppConfig>(APP_CONFIG), role };
      const redis = new RunRedis(url, prefix);
      harness.connections.push(redis);
      const sut = new QueueRunSupervisor(
        harness.runs,
        harness.moduleRef.get(RunQueriesService),
        harness.moduleRef.get(RunEventsService),
        harness.moduleRef.get(RunLeasesService),
        redis,
        providedPort(RUN_EXECUTOR, harness.executor.forWorker(name)),
        config,
        // Each supervisor stands for a process of its own, with its own shutdown.
        new ShutdownGrace(config.shutdownGraceMs),
      );
      await sut.onApplicationBootstrap();
      started.push(sut);
      return sut;
    },
    async submitted(api: QueueRunSupervisor): Promise<string> {
      const run = await harness.runs.create(newRun());
      api.reserve().submit({ run, awaited: false });
      return run.id;
    },
    row: (id: string) => harness.rows.findOneByOrFail({ id }),
  } as QueueSupervisorHarness;

  beforeEach(async () => {
    prefix = uniqueRedisPrefix();
    harness.moduleRef = await runsTestingModule(
      [
        RunsService,
        RunQueriesService,
        RunEventsService,
        RunLeasesService,
        { provide: RUN_REDIS, useFactory: () => new RunRedis(url, prefix) },
      ],
      { REDIS_URL: url, REDIS_KEY_PREFIX: prefix, RUN_LEASE_MS: '1500', SHUTDOWN_GRACE_MS: '5000' },
    );
    harness.runs = harness.moduleRef.get(RunsService);
    harness.rows = harness.moduleRef.get(getRepositoryToken(RunEntity));
    harness.executor = new ScriptedExecutor(harness.runs);
  });

  afterEach(async () => {
    for (const sut of started.splice(0)) {
      await sut.beforeApplicationShutdown();
      sut.onApplicationShutdown();
    }
    for (const redis of harness.connections.splice(0)) await redis.close();
    await harness.moduleRef.close();
    await dropRedisPrefix(url, prefix);
  });

  return harness;
}
