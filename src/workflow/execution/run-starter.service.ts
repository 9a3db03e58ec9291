import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../../common/auth/principal';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { RegistryService } from '../../registry/registry.service';
import type { RunResponse } from '../../runs/run.dto';
import type { RunBudgets } from '../../runs/run-budgets';
import type { AdmitRun } from '../../runs/run-admission';
import type { RunRecord } from '../../runs/run-record';
import { isFinished } from '../../runs/run.entity';
import { RUN_SUPERVISOR, type RunSupervisor } from '../../runs/run-supervisor';
import { RunsService } from '../../runs/runs.service';
import { RunQueriesService } from '../../runs/run-queries.service';
import type { ModelCalls } from '../recording/model-calls';
import { type CheckedDefinition, DefinitionChecker } from '../definition-checker.service';
import { WorkflowsService } from '../workflows.service';
import { WorkflowVersionsService } from '../workflow-versions.service';
import { resolveRunTools } from './resolve-run-tools';
import { effectiveBudgets } from './run-request';
import { WorkflowRunExecutor } from './run-executor.service';

export interface StartOptions {
  principal: Principal;
  inputs: unknown;
  /** The run budgets of the request; each one set overrides the definition's. */
  budgets?: RunBudgets;
  wait: boolean;
  /** Run this saved version of a stored workflow (a test suite's); default the current one. */
  version?: number;
}

/** What a replay runs: a definition (not yet checked) with its inputs, and the workflow it belongs to. */
export interface ReplaySource {
  definition: unknown;
  inputs: unknown;
  workflowId: string | null;
  workflowVersion: number | null;
  budgets?: RunBudgets;
}

export interface StartResult {
  finished: boolean;
  run: RunResponse;
}

/** What a new run is made of, before anything is checked. */
export interface RunSource {
  /** The definition to check and run. */
  definition: unknown;
  inputs: unknown;
  principal: Principal;
  /** The stored workflow (and version) it runs; an inline run has none. */
  workflow?: { id: string | null; version: number | null };
  /** The run whose tool call this run is, and how deep it nests. */
  parent?: { runId: string | null; depth: number };
  /** The request's budgets, over the definition's. */
  budgets?: RunBudgets;
  /** Asked just before the row is stored: whether the run starts at once in this process (NewRun.startsNow). */
  startsNow: () => boolean;
  /** The admission of a top-level run, prepared when the request came (NewRun.admission). */
  admission?: AdmitRun;
}

/**
 * Starts runs: every entry point (a stored workflow, an inline definition, a replay, a workflow tool) checks its
 * definition and inputs, pins its tools and stores the run through one `createRun`. Stored and inline runs go to
 * the RunSupervisor, which decides where they execute; a replay executes here.
 */
@Injectable()
export class RunStarter {
  constructor(
    private readonly runs: RunsService,
    private readonly queries: RunQueriesService,
    private readonly workflows: WorkflowsService,
    private readonly checker: DefinitionChecker,
    private readonly versions: WorkflowVersionsService,
    private readonly registry: RegistryService,
    private readonly executor: WorkflowRunExecutor,
    @Inject(RUN_SUPERVISOR) private readonly supervisor: RunSupervisor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  startStored(idOrName: string, options: StartOptions): Promise<StartResult> {
    return this.submit(options, async () => {
      const current = await this.workflows.findVisible(idOrName, options.principal);
      this.workflows.assertEnabled(current);
      const workflow =
        options.version === undefined || options.version === current.version
          ? current
          : { ...(await this.versions.find(current, options.version)), id: current.id };
      return { definition: workflow.definition, workflow: { id: workflow.id, version: workflow.version } };
    });
  }

  startInline(definition: unknown, options: StartOptions): Promise<StartResult> {
    return this.submit(options, () => Promise.resolve({ definition }));
  }

  /**
   * A replay (or a case run from a cassette): `definition` run with `inputs`, its tools resolved now, every model
   * call made through `models` instead of the providers. Executed in this process; resolves when it has ended.
   */
  async replay(
    source: ReplaySource,
    principal: Principal,
    models: ModelCalls,
  ): Promise<{ runId: string; status: string }> {
    const { run, checked } = await this.createRun({
      definition: source.definition,
      inputs: source.inputs,
      principal,
      workflow: source.workflowId ? { id: source.workflowId, version: source.workflowVersion } : undefined,
      budgets: source.budgets,
      startsNow: () => true,
    });
    const result = await this.executor.executeHere(run, checked, principal, new AbortController().signal, 0, {
      startsNow: true,
      models,
    });
    return { runId: run.id, status: result.status };
  }

  /**
   * Checks a run's definition and inputs, resolves and pins its tools, and stores the run: the one way a run is
   * created. The checked definition carries the resolved tools, for an execution in this process.
   */
  async createRun(source: RunSource): Promise<{ run: RunRecord; checked: CheckedDefinition }> {
    const { workflow, principal } = source;
    const version = workflow ? `${workflow.id}@${workflow.version}` : undefined;
    const checked = await this.checker.check(source.definition, principal, 'definition', { version });
    const inputs = this.checker.checkInputs(checked.definition, source.inputs, version ?? 'inline');
    const tools = await resolveRunTools(checked, principal, this.registry);
    const run = await this.runs.create({
      definition: checked.definition,
      inputs,
      userId: principal.userId,
      userRole: principal.role,
      ...(workflow && { workflowId: workflow.id, workflowVersion: workflow.version }),
      ...(source.parent && { parentRunId: source.parent.runId, depth: source.parent.depth }),
      toolPins: tools.pins,
      budgets: effectiveBudgets(checked.definition, source.budgets ?? {}),
      startsNow: source.startsNow(),
      admission: source.admission,
    });
    return { run, checked: { ...checked, tools: tools.byNode } };
  }

  /** Creates a run in a place of the run queue and submits it; with `wait`, answers once it stopped. */
  private async submit(
    options: StartOptions,
    source: () => Promise<Pick<RunSource, 'definition' | 'workflow'>>,
  ): Promise<StartResult> {
    const place = this.supervisor.reserve();
    // The user's quotas are read while the workflow is read and checked.
    const admission = this.runs.prepareAdmission(options.principal.userId);
    try {
      const { run, checked } = await this.createRun({
        ...(await source()),
        admission,
        inputs: options.inputs,
        principal: options.principal,
        budgets: options.budgets,
        // Stored running from the start (one statement instead of an INSERT and an UPDATE) only when it holds a run
        // slot of this process, and only when the caller waits for its end: the 202 of a run started without `wait`
        // says `queued` (issue 9's interface), and it must be what was stored.
        startsNow: () => options.wait && place.claimSlot(),
      });
      place.submit({ run, tools: checked.tools, awaited: options.wait });
      if (!options.wait) return { finished: false, run: this.queries.toAccepted(run) };
      const current = await this.supervisor.waitForRun(run.id, options.principal, this.config.workflows.waitTimeoutMs);
      return { finished: isFinished(current.status), run: current };
    } finally {
      place.release();
    }
  }
}
