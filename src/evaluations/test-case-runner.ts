import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import { ProviderRegistry } from '../llm/provider-registry';
import type { RunResponse } from '../runs/run.dto';
import { isFinished, type RunStatus } from '../runs/run.entity';
import { RUN_SUPERVISOR, type RunSupervisor } from '../runs/run-supervisor';
import { RunsService } from '../runs/runs.service';
import { RunQueriesService } from '../runs/run-queries.service';
import { errorMessage } from '../shared/error-text';
import { sleep } from '../shared/sleep';
import type { WorkflowEntity } from '../workflow/workflow.entity';
import { RunStarter } from '../workflow/execution/run-starter.service';
import type { WorkflowDefinition } from '../workflow/definition.schema';
import { evaluateAssertion, type Judge } from './assertions';
import { type Cassette, exchangesOf } from './cassette';
import { judgeWith } from './judge';
import { observeRun } from './observed-run';
import { ReplayService } from './replay.service';
import type { TestCase } from './test-case.schema';
import type { CaseResult } from './test-run-results';
import type { TestRunOptions } from './test-run-options';

/** How often a case reads again the status of a run its process no longer executes. */
const RUN_POLL_MS = 1_000;

/** Whether a case stops waiting for its run: gone, ended, or waiting for an approval (a test run gives none). */
const doneWaiting = (status: RunStatus | null): boolean =>
  status === null || isFinished(status) || status === 'waiting';

/** A case's run inputs: its `inputs`, with its `conversation` as `messages`. */
const inputsOf = (testCase: TestCase): Record<string, unknown> => ({
  ...(testCase.inputs ?? {}),
  ...(testCase.conversation ? { messages: testCase.conversation } : {}),
});

/** Runs one case of a test run (a run of the workflow, or a replay of its cassette) and judges its result. */
@Injectable()
export class TestCaseRunner {
  private readonly judge: Judge;

  constructor(
    private readonly runner: RunStarter,
    private readonly runs: RunsService,
    private readonly queries: RunQueriesService,
    private readonly replays: ReplayService,
    @Inject(RUN_SUPERVISOR) private readonly supervisor: RunSupervisor,
    providers: ProviderRegistry,
  ) {
    this.judge = judgeWith(providers);
  }

  /** The case's result; a run that could not start or a replay that failed makes a failed result naming why. */
  async run(
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
      // A replay that left its cassette stopped before the calls it would have made: their cost is unknown.
      cost: divergence === null ? run.cost : null,
    };
  }

  /**
   * Until the run has ended (or waits for an approval, which a test run does not give). The supervisor answers at
   * once for a run it does not hold (one handed back while this process shuts down, or resumed elsewhere): such a
   * run is read again every RUN_POLL_MS, never in a loop that takes the process's every turn.
   */
  private async waitForEnd(runId: string): Promise<void> {
    for (;;) {
      if (doneWaiting(await this.runs.statusOf(runId))) return;
      if (await this.supervisor.waitForEnd(runId, 60_000)) {
        if (doneWaiting(await this.runs.statusOf(runId))) return;
        await sleep(RUN_POLL_MS);
      }
    }
  }
}
