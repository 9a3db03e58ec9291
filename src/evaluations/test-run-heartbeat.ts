import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, LessThan, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { processOwnerId } from '../common/process-owner';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { errorMessage } from '../shared/error-text';
import { TestRunEntity } from './test-run.entity';

/** Heartbeats a test run may miss before a sweep ends it as interrupted. */
export const MISSED_HEARTBEATS = 3;

/** The reason stored on a test run whose process stopped running it at `at`. */
export const interruptedReason = (at: Date): string =>
  `interrupted: the process running it stopped at ${at.toISOString()}`;

/**
 * Keeps every `running` test run owned by a live process. This process refreshes `heartbeat_at` of the test runs
 * it runs with one UPDATE every TEST_RUN_HEARTBEAT_MS; a sweep, at start and at every beat in each process that
 * serves the API, ends the test runs whose heartbeat is older than MISSED_HEARTBEATS intervals (their process died)
 * with an interruption reason, keeping the case results stored so far. The end is a conditional UPDATE on the
 * stale heartbeat, so a live process's test runs are never ended by another.
 */
@Injectable()
export class TestRunHeartbeat implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TestRunHeartbeat.name);
  /** This process, as `test_runs.owner`. */
  readonly owner = processOwnerId();
  /** Test runs this process runs now. */
  private readonly live = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @InjectRepository(TestRunEntity) private readonly testRuns: Repository<TestRunEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'worker') return;
    await this.sweep().catch((error: unknown) => this.logger.warn(`test run sweep failed: ${errorMessage(error)}`));
    this.timer = setInterval(() => void this.tick(), this.config.testRunHeartbeatMs).unref();
  }

  /** After the shutdown grace (TestRunsService.beforeApplicationShutdown), during which the heartbeat goes on. */
  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** From now until `release`, this process refreshes the test run's heartbeat. */
  hold(testRunId: string): void {
    this.live.add(testRunId);
  }

  release(testRunId: string): void {
    this.live.delete(testRunId);
  }

  /** One UPDATE for all the test runs this process runs. */
  async beat(now = new Date()): Promise<void> {
    if (this.live.size === 0) return;
    await this.testRuns.update({ owner: this.owner, status: 'running', id: In([...this.live]) }, { heartbeatAt: now });
  }

  /** Ends the running test runs whose heartbeat is stale at `now`; answers their ids. */
  async sweep(now = new Date()): Promise<string[]> {
    const cutoff = new Date(now.getTime() - MISSED_HEARTBEATS * this.config.testRunHeartbeatMs);
    const stale = await this.testRuns.find({
      select: { id: true, heartbeatAt: true, createdAt: true },
      where: [
        { status: 'running', heartbeatAt: LessThan(cutoff) },
        { status: 'running', heartbeatAt: IsNull() },
      ],
    });
    const ended: string[] = [];
    for (const row of stale) {
      const lastSeen = row.heartbeatAt ?? row.createdAt;
      // Conditional on the heartbeat still being stale: its owner may have beaten since the read.
      const result = await this.testRuns.update(
        { id: row.id, status: 'running', heartbeatAt: row.heartbeatAt === null ? IsNull() : LessThan(cutoff) },
        this.endOf(interruptedReason(lastSeen), now),
      );
      if (result.affected === 1) ended.push(row.id);
    }
    if (ended.length > 0) this.logger.warn(`Ended ${ended.length} interrupted test run(s): ${ended.join(', ')}`);
    return ended;
  }

  /**
   * Ends a test run still `running` early, with `reason`, keeping the results stored so far; retried while the
   * database is unavailable (RUN_DB_RETRY_MS). Answers whether this call ended it.
   */
  async endEarly(testRunId: string, reason: string): Promise<boolean> {
    const result = await retryDatabaseWrite(
      () => this.testRuns.update({ id: testRunId, status: 'running' }, this.endOf(reason, new Date())),
      { budgetMs: this.config.runDbRetryMs },
    );
    return result?.affected === 1;
  }

  private endOf(reason: string, now: Date): QueryDeepPartialEntity<TestRunEntity> {
    return { status: 'failed', error: reason, finishedAt: now };
  }

  private async tick(): Promise<void> {
    try {
      await this.beat();
      await this.sweep();
    } catch (error) {
      this.logger.warn(`test run heartbeat failed: ${errorMessage(error)}`);
    }
  }
}
