import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { IsNull, Not, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { errorMessage } from '../shared/error-text';
import { sleep } from '../shared/sleep';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ShutdownGrace } from '../config/shutdown-grace';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { WorkflowVersionsService } from '../workflow/workflow-versions.service';
import type { TestCase } from './test-case.schema';
import {
  type CaseResult,
  compareResults,
  summarize,
  type TestRunComparison,
  type TestRunSummary,
} from './test-run-results';
import { TestRunEntity } from './test-run.entity';
import { interruptedReason, TestRunHeartbeat } from './test-run-heartbeat';
import type { TestRunOptions } from './test-run-options';
import { TestSuitesService } from './test-suites.service';
import { TestCaseRunner } from './test-case-runner';

/** A test run as the API shows it. */
export interface TestRunResponse {
  id: string;
  workflow_id: string;
  workflow_version: number | null;
  /** `running` until every case has ended, or the test run ended early (`error`). */
  status: 'running' | 'passed' | 'failed';
  /** Why the test run ended before all its cases did (e.g. its process stopped); null otherwise. */
  error: string | null;
  /** Cases ended of all the test run's cases. */
  progress: { done: number; total: number };
  /** Of the cases ended so far; `cases` counts all of them. */
  summary: TestRunSummary;
  /** A result per ended case: in the order they ended while running, in the suite's order once done. */
  results: CaseResult[];
  comparison: TestRunComparison | null;
  created_at: string;
  finished_at: string | null;
}

const toTestRunResponse = (row: TestRunEntity): TestRunResponse => ({
  id: row.id,
  workflow_id: row.workflowId,
  workflow_version: row.workflowVersion,
  status: row.status as TestRunResponse['status'],
  error: row.error ?? null,
  progress: { done: row.results.length, total: row.summary.cases },
  // Test runs stored before costs were kept read as of unknown cost.
  summary: { ...row.summary, cost: row.summary.cost ?? null },
  results: row.results.map((result) => ({ ...result, cost: result.cost ?? null })),
  comparison: row.comparison && {
    ...row.comparison,
    cost_delta: row.comparison.cost_delta ?? null,
    cases: row.comparison.cases.map((entry) => ({ ...entry, cost_delta: entry.cost_delta ?? null })),
  },
  created_at: row.createdAt.toISOString(),
  finished_at: row.finishedAt?.toISOString() ?? null,
});

/**
 * Runs `work` over `items`, at most `limit` at once, results in the items' order; once `stopped()`, no item starts
 * (those left have no result).
 */
async function inPool<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  stopped: () => boolean,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stopped()) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The summary of a test run with `total` cases of which `results` have ended. */
const progressSummary = (results: readonly CaseResult[], total: number): TestRunSummary => ({
  ...summarize(results),
  cases: total,
});

/** A test run this process stopped running before all its cases ended (it is shutting down). */
class TestRunStoppedError extends Error {}

/**
 * Runs a workflow's suite, one run per case (or a replay of the case's cassette), and stores the results. A test
 * run never stays `running` without a live process running it: TestRunHeartbeat ends those of a dead process, any
 * failure of the background task ends it with the reason, and shutdown ends the ones left after the grace period.
 */
@Injectable()
export class TestRunsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(TestRunsService.name);
  /** Test runs whose cases run in this process, by id. */
  private readonly inFlight = new Map<string, Promise<TestRunEntity>>();
  /** Shutting down: no case starts. */
  private draining = false;

  constructor(
    @InjectRepository(TestRunEntity) private readonly testRuns: Repository<TestRunEntity>,
    private readonly suites: TestSuitesService,
    private readonly versions: WorkflowVersionsService,
    private readonly caseRunner: TestCaseRunner,
    private readonly heartbeat: TestRunHeartbeat,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly grace: ShutdownGrace,
  ) {}

  /**
   * Starts a test run of the suite: stored `running` at once, its cases run in the background, each result stored
   * as its case ends; with `wait`, answers once every case has ended, compared with the suite's previous test run.
   * A wrong version or case name fails the call before anything runs.
   */
  async start(
    workflowIdOrName: string,
    options: TestRunOptions,
    principal: Principal,
    wait: boolean,
  ): Promise<TestRunResponse> {
    const { workflow, suite } = await this.suites.find(workflowIdOrName, principal);
    // The version the cases run against: a stored one (404 naming it when there is none), else the current one.
    const version =
      options.version === undefined || options.version === workflow.version
        ? { version: workflow.version, definition: workflow.definition }
        : await this.versions.find(workflow, options.version);
    let cases = suite.cases;
    if (options.cases !== undefined) {
      const unknown = options.cases.filter((name) => !cases.some((testCase) => testCase.name === name));
      if (unknown.length > 0) {
        throw DomainError.validation([
          { field: 'cases', message: `no case named ${unknown.map((name) => `"${name}"`).join(', ')}` },
        ]);
      }
      cases = cases.filter((testCase) => options.cases?.includes(testCase.name));
    }
    const row: TestRunEntity = {
      id: randomUUID(),
      suiteId: suite.id,
      workflowId: workflow.id,
      workflowVersion: version.version,
      status: 'running',
      summary: progressSummary([], cases.length),
      results: [],
      comparison: null,
      previousTestRunId: null,
      userId: principal.userId,
      createdAt: new Date(),
      finishedAt: null,
      owner: this.heartbeat.owner,
      heartbeatAt: new Date(),
      error: null,
    };
    await this.testRuns.insert(row as QueryDeepPartialEntity<TestRunEntity>);
    const finished = this.guarded(
      row,
      this.runCases(row, cases, options.concurrency, (testCase) =>
        this.caseRunner.run(workflow, version, testCase, options, principal),
      ),
    );
    if (wait) return toTestRunResponse(await finished);
    void finished.catch((error: unknown) => this.logger.error(`test run ${row.id} failed: ${errorMessage(error)}`));
    return toTestRunResponse(row);
  }

  /**
   * Shutdown: no case starts any more, the cases in flight get what is left of the shutdown's grace period
   * (ShutdownGrace, SHUTDOWN_GRACE_MS in all) to end, then the test runs left
   * are ended as interrupted (with the results stored so far), so that no client polls them for good.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    if (this.inFlight.size === 0) return;
    // The shutdown's one grace period: the runs' supervisor waits only what this leaves of it.
    const graceMs = this.grace.remainingMs;
    this.logger.warn(`Shutting down: waiting up to ${graceMs} ms for ${this.inFlight.size} test run(s)`);
    const grace = new AbortController();
    await Promise.race([
      Promise.allSettled(this.inFlight.values()),
      sleep(graceMs, grace.signal).catch(() => undefined),
    ]);
    grace.abort();
    for (const testRunId of this.inFlight.keys()) {
      await this.heartbeat
        .endEarly(testRunId, interruptedReason(new Date()))
        .catch((error: unknown) => this.logger.error(`test run ${testRunId} not ended: ${errorMessage(error)}`));
    }
  }

  /**
   * While `work` runs, the test run is in flight here and its heartbeat kept; should it fail (a write that kept
   * failing, a shutdown), the test run is ended with the reason before the failure is passed on.
   */
  private async guarded(row: TestRunEntity, work: Promise<TestRunEntity>): Promise<TestRunEntity> {
    this.heartbeat.hold(row.id);
    const tracked = work.then(
      (ended) => ended,
      async (error: unknown) => {
        const reason =
          error instanceof TestRunStoppedError
            ? interruptedReason(new Date())
            : `the test run could not be completed: ${errorMessage(error)}`;
        await this.heartbeat
          .endEarly(row.id, reason)
          .catch((endError: unknown) => this.logger.error(`test run ${row.id} not ended: ${errorMessage(endError)}`));
        throw error;
      },
    );
    this.inFlight.set(row.id, tracked);
    try {
      return await tracked;
    } finally {
      this.inFlight.delete(row.id);
      this.heartbeat.release(row.id);
    }
  }

  /**
   * Runs the cases, `concurrency` at once (see TestCaseRunner), storing each result as it ends, then the test run's
   * end: its status, the results in the suite's order and the comparison with the suite's previous ended test run.
   */
  private async runCases(
    row: TestRunEntity,
    cases: readonly TestCase[],
    concurrency: number,
    runCase: (testCase: TestCase) => Promise<CaseResult>,
  ): Promise<TestRunEntity> {
    const ended: CaseResult[] = [];
    let stored: Promise<unknown> = Promise.resolve();
    const running = { id: row.id, status: 'running' };
    const results = await inPool(
      cases,
      concurrency,
      async (testCase) => {
        const result = await runCase(testCase);
        ended.push(result);
        const progress = { results: [...ended], summary: progressSummary(ended, cases.length) };
        // Progress is written in order, one write at a time; a failed write only delays what GET shows.
        stored = stored
          .then(() => this.testRuns.update(running, progress as QueryDeepPartialEntity<TestRunEntity>))
          .catch((error: unknown) =>
            this.logger.warn(`test run ${row.id}: progress not stored: ${errorMessage(error)}`),
          );
        return result;
      },
      () => this.draining,
    );
    await stored;
    if (this.draining && ended.length < cases.length) throw new TestRunStoppedError('shutting down');
    const previous = await this.testRuns.findOne({
      where: { suiteId: row.suiteId, id: Not(row.id), finishedAt: Not(IsNull()) },
      order: { createdAt: 'DESC' },
    });
    const summary = summarize(results);
    const end = {
      status: summary.failed === 0 ? 'passed' : 'failed',
      summary,
      results,
      comparison: previous ? compareResults(results, previous) : null,
      previousTestRunId: previous?.id ?? null,
      finishedAt: new Date(),
    };
    // Retried through a database outage like a run's writes; a test run ended meanwhile (swept, shut down) stays so.
    const written = await retryDatabaseWrite(
      () => this.testRuns.update(running, end as QueryDeepPartialEntity<TestRunEntity>),
      { budgetMs: this.config.runDbRetryMs },
    );
    if (written?.affected === 0) return (await this.testRuns.findOneBy({ id: row.id })) ?? { ...row, ...end };
    return { ...row, ...end };
  }

  /** The suite's test runs, newest first. */
  async list(workflowIdOrName: string, principal: Principal): Promise<TestRunResponse[]> {
    const { suite } = await this.suites.find(workflowIdOrName, principal);
    const rows = await this.testRuns.find({ where: { suiteId: suite.id }, order: { createdAt: 'DESC' }, take: 100 });
    return rows.map(toTestRunResponse);
  }

  async get(workflowIdOrName: string, testRunId: string, principal: Principal): Promise<TestRunResponse> {
    const { suite } = await this.suites.find(workflowIdOrName, principal);
    const row = await this.testRuns.findOneBy({ id: testRunId, suiteId: suite.id });
    if (!row) throw DomainError.notFound('Test run', testRunId);
    return toTestRunResponse(row);
  }
}
