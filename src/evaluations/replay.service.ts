import { Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { ModelExchange } from '../llm/model-exchange';
import { ModelExchangesService } from '../runs/model-exchanges.service';
import type { RunResponse } from '../runs/run.dto';
import { RunQueriesService } from '../runs/run-queries.service';
import { isSubset } from './assertions';
import { type Divergence } from '../workflow/recording/divergence';
import { ReplayModelCalls, type ReplayToolMode } from '../workflow/recording/replay-model-calls';
import { type ReplaySource, RunStarter } from '../workflow/execution/run-starter.service';
import { WorkflowsService } from '../workflow/workflows.service';
import { type Cassette, toCassette } from './cassette';

/** Which definition a replay runs: the workflow as it is now (to see what a change did), or as the run had it. */
export type ReplayDefinition = 'current' | 'recorded';

export interface ReplayOptions {
  tools: ReplayToolMode;
  definition: ReplayDefinition;
}

/** How a replay went: the new run, and where it first left the recording. */
export interface ReplayReport {
  replayed_run_id: string | null;
  run_id: string;
  /** No divergence, and the replay ended like the recorded run with equal outputs. */
  reproduced: boolean;
  tools: ReplayToolMode;
  definition: ReplayDefinition;
  divergence: Divergence | null;
  status: string;
  recorded_status: string | null;
  outputs: Record<string, unknown> | null;
  recorded_outputs: Record<string, unknown> | null;
}

/** Replays of recorded runs and the cassettes they are exported as. */
@Injectable()
export class ReplayService {
  constructor(
    private readonly runs: RunQueriesService,
    private readonly exchanges: ModelExchangesService,
    private readonly workflows: WorkflowsService,
    private readonly runner: RunStarter,
  ) {}

  /** The run's recorded model calls as a cassette. */
  async cassette(runId: string, principal: Principal): Promise<Cassette> {
    const run = await this.runs.findVisible(runId, principal);
    return toCassette(run, await this.exchanges.list(run.id));
  }

  /** Re-executes a recorded run against its recorded model answers; no provider is contacted. */
  async replayRun(runId: string, options: ReplayOptions, principal: Principal): Promise<ReplayReport> {
    const run = await this.runs.findVisible(runId, principal);
    const exchanges = await this.exchanges.list(run.id);
    if (exchanges.length === 0) {
      throw DomainError.conflict(`run ${run.id} has no recorded model calls to replay`, 'id');
    }
    let source: ReplaySource = {
      definition: run.definition,
      inputs: run.inputs,
      workflowId: run.workflowId,
      workflowVersion: run.workflowVersion,
      budgets: run.budgets ?? undefined,
    };
    if (options.definition === 'current' && run.workflowId !== null) {
      const workflow = await this.workflows.findVisible(run.workflowId, principal);
      source = { ...source, definition: workflow.definition, workflowVersion: workflow.version };
    }
    const recorded = await this.runs.get(run.id, principal);
    return this.replay(source, exchanges, options, principal, recorded);
  }

  /** Runs `source` against `exchanges` (a run's, or a cassette's) and reports the first divergence. */
  async replay(
    source: ReplaySource,
    exchanges: readonly ModelExchange[],
    options: ReplayOptions,
    principal: Principal,
    recorded: RunResponse | null,
  ): Promise<ReplayReport> {
    const models = new ReplayModelCalls(exchanges, options.tools);
    const { runId } = await this.runner.replay(source, principal, models);
    const replayed = await this.runs.get(runId, principal);
    const divergence = models.divergence;
    const sameEnd =
      recorded === null ||
      (recorded.status === replayed.status &&
        isSubset(recorded.outputs ?? null, replayed.outputs ?? null) &&
        isSubset(replayed.outputs ?? null, recorded.outputs ?? null));
    return {
      replayed_run_id: recorded?.id ?? null,
      run_id: runId,
      reproduced: divergence === null && sameEnd,
      tools: options.tools,
      definition: options.definition,
      divergence,
      status: replayed.status,
      recorded_status: recorded?.status ?? null,
      outputs: replayed.outputs,
      recorded_outputs: recorded?.outputs ?? null,
    };
  }
}
