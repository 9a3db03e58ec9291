import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ProviderRegistry } from '../llm/provider-registry';
import type { RunResponse } from '../runs/run.dto';
import { isFinished } from '../runs/run.entity';
import { RUN_SUPERVISOR, type RunSupervisor } from '../runs/run-supervisor';
import { RunsService } from '../runs/runs.service';
import { RunQueriesService } from '../runs/run-queries.service';
import { errorMessage } from '../shared/error-text';
import type { WorkflowEntity } from '../workflow/workflow.entity';
import { RunStarter } from '../workflow/execution/run-starter.service';
import { WorkflowVersionsService } from '../workflow/workflow-versions.service';
import type { WorkflowDefinition } from '../workflow/definition.schema';
import { evaluateAssertion, type Judge } from './assertions';
import { type Cassette, exchangesOf } from './cassette';
import { judgeWith } from './judge';
import { observeRun } from './observed-run';
import { ReplayService } from './replay.service';
import type { TestCase } from './test-case.schema';
import {
  type CaseResult,
  compareResults,
  summarize,
  type TestRunComparison,
  type TestRunSummary,
} from './test-run-results';
import { TestRunEntity } from './test-run.entity';
import type { TestRunOptions } from './test-run-options';
import { TestSuitesService } from './test-suites.service';

/** A test run as the API shows it. */
export interface TestRunResponse {
  id: string;
  workflow_id: string;
  workflow_version: number | null;
  status: 'passed' | 'failed';
  summary: TestRunSummary;
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

/** Runs `work` over `items`, at most `limit` at once, results in the items' order. */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A case's run inputs: its `inputs`, with its `conversation` as `messages`. */
const inputsOf = (testCase: TestCase): Record<string, unknown> => ({
  ...(testCase.inputs ?? {}),
  ...(testCase.conversation ? { messages: testCase.conversation } : {}),
});

/** Runs a workflow's suite, one run per case (or a replay of the case's cassette), and stores the results. */
@Injectable()
export class TestRunsService {
  private readonly judge: Judge;

  constructor(
    @InjectRepository(TestRunEntity) private readonly testRuns: Repository<TestRunEntity>,
    private readonly suites: TestSuitesService,
    private readonly runner: RunStarter,
    private readonly runs: RunsService,
    private readonly queries: RunQueriesService,
    private readonly replays: ReplayService,
    private readonly versions: WorkflowVersionsService,
    @Inject(RUN_SUPERVISOR) private readonly supervisor: RunSupervisor,
    providers: ProviderRegistry,
  ) {
    this.judge = judgeWith(providers);
  }

  /** Runs the suite now (awaited) and answers with its results compared with the suite's previous test run. */
  async start(workflowIdOrName: string, options: TestRunOptions, principal: Principal): Promise<TestRunResponse> {
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
    const createdAt = new Date();
    const results = await inPool(cases, options.concurrency, (testCase) =>
      this.runCase(workflow, version, testCase, options, principal),
    );
    const previous = await this.testRuns.findOne({ where: { suiteId: suite.id }, order: { createdAt: 'DESC' } });
    const summary = summarize(results);
    const row: TestRunEntity = {
      id: randomUUID(),
      suiteId: suite.id,
      workflowId: workflow.id,
      workflowVersion: version.version,
      status: summary.failed === 0 ? 'passed' : 'failed',
      summary,
      results,
      comparison: previous ? compareResults(results, previous) : null,
      previousTestRunId: previous?.id ?? null,
      userId: principal.userId,
      createdAt,
      finishedAt: new Date(),
    };
    await this.testRuns.insert(row as QueryDeepPartialEntity<TestRunEntity>);
    return toTestRunResponse(row);
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

  private async runCase(
    workflow: WorkflowEntity,
    version: { version: number; definition: WorkflowDefinition },
    testCase: TestCase,
    options: TestRunOptions,
    principal: Principal,
  ): Promise<CaseResult> {
    const budgets = { ...options.budgets, ...testCase.budgets };
    const inputs = inputsOf(testCase);
    let runId: string;
    let divergence: CaseResult['divergence'] = null;
    try {
      if (testCase.cassette !== undefined) {
        const report = await this.replays.replay(
          {
            definition: version.definition,
            inputs,
            workflowId: workflow.id,
            workflowVersion: version.version,
            budgets,
          },
          exchangesOf(testCase.cassette as unknown as Cassette),
          { tools: 'recorded', definition: 'current' },
          principal,
          null,
        );
        runId = report.run_id;
        divergence = report.divergence;
      } else {
        const started = await this.runner.startStored(workflow.id, {
          principal,
          inputs,
          budgets,
          wait: true,
          version: version.version,
        });
        runId = started.run.id;
        await this.waitForEnd(runId);
      }
    } catch (error) {
      return {
        name: testCase.name,
        passed: false,
        run_id: null,
        run_status: null,
        replayed: testCase.cassette !== undefined,
        divergence: null,
        error: errorMessage(error),
        assertions: [],
        total_tokens: 0,
        duration_ms: null,
        cost: null,
      };
    }
    const run = await this.queries.get(runId, principal);
    return this.judgeCase(testCase, run, divergence);
  }

  private async judgeCase(
    testCase: TestCase,
    run: RunResponse,
    divergence: CaseResult['divergence'],
  ): Promise<CaseResult> {
    const observed = observeRun(run);
    const assertions = await Promise.all(
      testCase.assertions.map((assertion) => evaluateAssertion(assertion, observed, this.judge)),
    );
    // A run that did not succeed fails its case, unless the case asserts how it stopped.
    const endedAsExpected =
      run.status === 'succeeded' || testCase.assertions.some((assertion) => assertion.type === 'stop_reason');
    return {
      name: testCase.name,
      passed: endedAsExpected && divergence === null && assertions.every((result) => result.passed),
      run_id: run.id,
      run_status: run.status,
      replayed: testCase.cassette !== undefined,
      divergence,
      error: endedAsExpected ? null : (run.error ?? `the run ended ${run.status}`),
      assertions,
      total_tokens: observed.totalTokens,
      duration_ms: observed.durationMs,
      cost: run.cost,
    };
  }

  /** Until the run has ended (or waits for an approval, which a test run does not give). */
  private async waitForEnd(runId: string): Promise<void> {
    for (;;) {
      const status = await this.runs.statusOf(runId);
      if (status === null || isFinished(status) || status === 'waiting') return;
      await this.supervisor.waitForEnd(runId, 60_000);
    }
  }
}
