import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { inSpan, markSpanFailed } from '../common/tracing';
import { RegistryService } from '../registry/registry.service';
import { type ToolDefinition, type ToolRunContext } from '../shared/tool-definition';
import { ToolExecutionError } from '../shared/tool-errors';
import type { WorkflowToolRunner } from '../executors/workflow/workflow-tool-runner';
import type { RunResponse } from '../runs/run.dto';
import type { UsageTotals } from '../runs/run.entity';
import type { RunBudgets, RunStopReason } from '../runs/run-budgets';
import type { RunRecord } from '../runs/run-record';
import { RunEventsService } from '../runs/run-events.service';
import { isFinished } from '../runs/run.entity';
import {
  INTERRUPTED,
  type QueuePlace,
  RUN_SUPERVISOR,
  RunHandedBackError,
  type RunExecutor,
  type RunStop,
  type RunSupervisor,
} from '../runs/run-supervisor';
import { RunsService } from '../runs/runs.service';
import { RunCheckpointStore } from '../runs/run-checkpoint-store';
import { ApprovalsService } from '../runs/approvals.service';
import { ModelExchangesService } from '../runs/model-exchanges.service';
import type { ModelCalls } from './recording/model-calls';
import { RecordingModelCalls } from './recording/recording-model-calls';
import { AwaitingApprovalError } from '../agent/approval-gate';
import { coalesceDeltas } from './delta-coalescer';
import { finishedOutputs, RunCheckpointer, toRunState } from './execution/run-checkpointer';
import { logCheckpointedCalls } from './checkpointed-call-logs';
import { resolveRunTools } from './execution/resolve-run-tools';
import { RunMeter } from './execution/run-meter';
import { effectiveBudgets } from './execution/run-request';
import { WorkflowEngine } from './execution/engine';
import { WorkflowRunError } from './execution/run-context';
import { type CheckedDefinition, WorkflowsService } from './workflows.service';
import { WorkflowVersionsService } from './workflow-versions.service';
import { errorMessage } from '../shared/error-text';

export const WORKFLOW_ENGINE = Symbol('WORKFLOW_ENGINE');

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

type RunResult =
  | {
      status: 'succeeded' | 'failed' | 'cancelled';
      outputs?: Record<string, unknown>;
      error?: string;
      usage?: UsageTotals;
      stopReason?: RunStopReason;
    }
  | { status: 'handed_back'; error?: undefined; usage?: UsageTotals }
  | { status: 'waiting'; error?: undefined; usage?: UsageTotals };

/** Streamed deltas of one stream within this long are one event (and one stored row); the event log waits as long to store a batch. */
const DELTA_WINDOW_MS = 50;

/** How a run executes here. */
interface Execution {
  checkpoint?: RunCheckpointer;
  /** The meter of the run whose tool call this run is. */
  parent?: RunMeter;
  /** The run was stored running when it was created (NewRun.startsNow) and has not executed yet. */
  startsNow?: boolean;
  /** How its LLM nodes reach their providers; absent: recorded (see RecordingModelCalls). */
  models?: ModelCalls;
}

/** Who a stored run executes as: its owner, with the role the owner had when the run was created. */
const ownerOf = (run: RunRecord): Principal => ({ userId: run.userId, role: run.userRole, keyId: 'run-owner' });

const stopOf = (status: string): RunStop => (isFinished(status) ? 'ended' : 'waiting');

/** Who a workflow tool runs as: the caller of the tool, with the caller's rights. */
const toolPrincipal = (caller: { userId: string; isAdmin: boolean }): Principal => ({
  userId: caller.userId,
  role: caller.isAdmin ? 'admin' : 'user',
  keyId: 'workflow-tool',
});

/**
 * Starts runs (stored, inline, or as a tool), executes them with the engine, and records how they end.
 * As RUN_EXECUTOR it executes any stored run from the database alone (a new one, or one resumed after a restart).
 */
@Injectable()
export class WorkflowRunner implements WorkflowToolRunner, RunExecutor {
  private readonly logger = new Logger(WorkflowRunner.name);
  /** The meters of the runs executing here, so a child workflow-tool run counts against its parent's budgets too. */
  private readonly liveMeters = new Map<string, RunMeter>();
  /** ?wait=true requests of runs executing here, told when the run's end is stored (before its last events are). */
  private readonly endStoredWaiters = new Map<string, () => void>();
  /**
   * Embedded mode: the row a run's start inserted and the tools it resolved, for its execution in this process,
   * by run id. Nothing else writes that row before the run executes (a cancel of a queued run aborts it here), and
   * its event log was opened empty at the start: the execution reads neither back.
   */
  private readonly prepared = new Map<
    string,
    { run: RunRecord; tools: ReadonlyMap<string, readonly ToolDefinition[]> | undefined }
  >();

  constructor(
    private readonly runs: RunsService,
    private readonly events: RunEventsService,
    private readonly workflows: WorkflowsService,
    private readonly versions: WorkflowVersionsService,
    private readonly registry: RegistryService,
    @Inject(WORKFLOW_ENGINE) private readonly engine: WorkflowEngine,
    @Inject(RUN_SUPERVISOR) private readonly supervisor: RunSupervisor,
    private readonly checkpoints: RunCheckpointStore,
    private readonly approvals: ApprovalsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly exchanges: ModelExchangesService,
  ) {}

  async startStored(idOrName: string, options: StartOptions): Promise<StartResult> {
    const place = this.supervisor.reserve();
    try {
      const current = await this.workflows.findVisible(idOrName, options.principal);
      this.workflows.assertEnabled(current);
      const workflow =
        options.version === undefined || options.version === current.version
          ? current
          : { ...(await this.versions.find(current, options.version)), id: current.id };
      const checked = await this.workflows.check(
        workflow.definition,
        options.principal,
        'definition',
        `${workflow.id}@${workflow.version}`,
      );
      const inputs = this.workflows.checkInputs(
        checked.definition,
        options.inputs,
        `${workflow.id}@${workflow.version}`,
      );
      const tools = await resolveRunTools(checked, options.principal, this.registry);
      const run = await this.runs.create({
        definition: checked.definition,
        inputs,
        userId: options.principal.userId,
        userRole: options.principal.role,
        workflowId: workflow.id,
        workflowVersion: workflow.version,
        toolPins: tools.pins,
        budgets: effectiveBudgets(checked.definition, options.budgets ?? {}),
        startsNow: this.startsHereNow(place, options),
      });
      return await this.launch(run, { ...checked, tools: tools.byNode }, options, place);
    } finally {
      place.release();
    }
  }

  async startInline(definition: unknown, options: StartOptions): Promise<StartResult> {
    const place = this.supervisor.reserve();
    try {
      const checked = await this.workflows.check(definition, options.principal);
      const inputs = this.workflows.checkInputs(checked.definition, options.inputs, 'inline');
      const tools = await resolveRunTools(checked, options.principal, this.registry);
      const run = await this.runs.create({
        definition: checked.definition,
        inputs,
        userId: options.principal.userId,
        userRole: options.principal.role,
        toolPins: tools.pins,
        budgets: effectiveBudgets(checked.definition, options.budgets ?? {}),
        startsNow: this.startsHereNow(place, options),
      });
      return await this.launch(run, { ...checked, tools: tools.byNode }, options, place);
    } finally {
      place.release();
    }
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
    const label = source.workflowId ? `${source.workflowId}@${source.workflowVersion}` : undefined;
    let checked = await this.workflows.check(source.definition, principal, 'definition', label);
    const inputs = this.workflows.checkInputs(checked.definition, source.inputs, label ?? 'inline');
    const tools = await resolveRunTools(checked, principal, this.registry);
    checked = { ...checked, tools: tools.byNode };
    const run = await this.runs.create({
      definition: checked.definition,
      inputs,
      userId: principal.userId,
      userRole: principal.role,
      workflowId: source.workflowId,
      workflowVersion: source.workflowVersion,
      toolPins: tools.pins,
      budgets: effectiveBudgets(checked.definition, source.budgets ?? {}),
      startsNow: true,
    });
    const result = await this.runTraced(run, checked, principal, new AbortController().signal, 0, {
      startsNow: true,
      models,
    });
    return { runId: run.id, status: result.status };
  }

  /** WorkflowToolRunner: the inputs schema a workflow tool offers as its parameters; null when not visible. */
  async inputsSchemaOf(workflowId: string, caller: { userId: string; isAdmin: boolean }) {
    try {
      const workflow = await this.workflows.findVisible(workflowId, toolPrincipal(caller));
      return workflow.definition.inputs ?? { type: 'object', properties: {} };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') return null;
      throw error;
    }
  }

  /** WorkflowToolRunner: what would stop runAsTool before the child run starts (the workflow gone or disabled). */
  async unavailableReason(workflowId: string, caller: { userId: string; isAdmin: boolean }) {
    try {
      const workflow = await this.workflows.findVisible(workflowId, toolPrincipal(caller));
      return workflow.enabled
        ? null
        : { dependency: workflow.name, reason: `runs workflow "${workflow.name}", which is disabled` };
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
      return {
        dependency: workflowId,
        reason: `runs workflow "${workflowId}", which does not exist or this API key may not use it`,
      };
    }
  }

  /** WorkflowToolRunner: a child run executed inline; its failure is the tool's failure. */
  async runAsTool(workflowId: string, inputs: Record<string, unknown>, context: ToolRunContext) {
    const principal = toolPrincipal(context);
    let checked: CheckedDefinition;
    let run: RunRecord;
    try {
      const workflow = await this.workflows.findVisible(workflowId, principal);
      // Said for the model, which cannot enable it: the API's 409 tells a person how to.
      if (!workflow.enabled) throw new Error('it is disabled; it cannot be used until someone enables it again');
      checked = await this.workflows.check(
        workflow.definition,
        principal,
        'definition',
        `${workflow.id}@${workflow.version}`,
      );
      const validInputs = this.workflows.checkInputs(checked.definition, inputs, `${workflow.id}@${workflow.version}`);
      // A child run pins the versions of its own tools when it starts, like any run.
      const tools = await resolveRunTools(checked, principal, this.registry);
      checked = { ...checked, tools: tools.byNode };
      run = await this.runs.create({
        definition: checked.definition,
        inputs: validInputs,
        userId: principal.userId,
        userRole: principal.role,
        workflowId: workflow.id,
        workflowVersion: workflow.version,
        parentRunId: context.runId,
        depth: context.depth,
        toolPins: tools.pins,
        budgets: effectiveBudgets(checked.definition, {}),
        startsNow: true,
      });
    } catch (error) {
      throw new ToolExecutionError(`workflow "${workflowId}" cannot run: ${errorMessage(error)}`);
    }
    // A child run's tokens and tool calls are its parent's too (counted as they happen), whether or not it succeeds.
    const parent = context.runId === null ? undefined : this.liveMeters.get(context.runId);
    const result = await this.runTraced(run, checked, principal, context.signal, context.depth, {
      startsNow: true,
      parent,
    });
    if (result.status !== 'succeeded') {
      throw new ToolExecutionError(`workflow run ${run.id} ${result.status}: ${result.error ?? 'no reason given'}`);
    }
    return { runId: run.id, outputs: result.outputs ?? {} };
  }

  /** RUN_EXECUTOR: executes a stored run, rebuilt from its row, until it ends, waits, or is handed back. */
  async execute(runId: string, signal: AbortSignal): Promise<RunStop> {
    const prepared = this.prepared.get(runId);
    this.prepared.delete(runId);
    const resolvedTools = prepared?.tools;
    const run = prepared?.run ?? (await this.runs.record(runId));
    if (!run || isFinished(run.status)) return 'ended';
    if (!prepared) await this.events.openStored(run.id);
    let checked: CheckedDefinition;
    try {
      const version = run.workflowId ? `${run.workflowId}@${run.workflowVersion}` : undefined;
      checked = { ...this.workflows.executionPlan(run.definition, version), tools: resolvedTools };
    } catch (error) {
      await this.record(run.id, { status: 'failed', error: errorMessage(error) }, undefined);
      return 'ended';
    }
    // A run that started before (a restart, a hand-back) goes on from its checkpoint; one stored running when it
    // was created here has not executed yet.
    const startsNow = prepared !== undefined && run.status === 'running';
    const resumed = run.startedAt !== null && !startsNow;
    const state = toRunState(resumed ? await this.checkpoints.load(run.id) : null);
    if (resumed) await this.runs.closeFinishedNodes(run.id, finishedOutputs(state));
    const checkpoint = new RunCheckpointer(run.id, this.checkpoints, state, resumed);
    if (resumed) await this.logCheckpointedCalls(run, checked, checkpoint);
    const result = await this.runTraced(run, checked, ownerOf(run), signal, run.depth, { checkpoint, startsNow });
    if (result.status === 'handed_back' || result.status === 'waiting') return result.status;
    return stopOf(result.status);
  }

  /**
   * Whether a new run starts at once in this process: then it is stored running from the start, one statement
   * instead of an INSERT and an UPDATE. Only where nothing else can take it up (a run slot of this process held for
   * it); with the queue, any worker may, so it is stored queued. And only when the caller waits for its end: the
   * 202 of a run started without `wait` says `queued` (issue 9's interface), and it must be what was stored.
   */
  private startsHereNow(place: QueuePlace, options: StartOptions): boolean {
    return options.wait && !this.events.fansOut && place.claimSlot();
  }

  private async launch(
    run: RunRecord,
    checked: CheckedDefinition,
    options: StartOptions,
    place: QueuePlace,
  ): Promise<StartResult> {
    // Queue mode: the run may execute in another process, whose events reach this one through Redis.
    if (!this.events.fansOut) {
      this.events.open(run.id);
      this.prepared.set(run.id, { run, tools: checked.tools });
      // It executes here: the answer to ?wait=true comes from what it wrote, not read back.
      if (options.wait) this.runs.keepCopy(run);
    }
    try {
      place.submit(run.id);
    } catch (error) {
      this.prepared.delete(run.id);
      this.runs.forgetCopy(run.id);
      throw error;
    }
    if (!options.wait) return { finished: false, run: this.runs.toAccepted(run) };
    // A run executing here answers once its end is stored, while its last events are still being written.
    const endStored = this.events.fansOut
      ? null
      : new Promise<void>((resolve) => this.endStoredWaiters.set(run.id, resolve));
    try {
      const ended = this.supervisor.waitForEnd(run.id, this.config.workflows.waitTimeoutMs);
      await (endStored ? Promise.race([ended, endStored]) : ended);
    } finally {
      this.endStoredWaiters.delete(run.id);
    }
    const current = this.runs.endedHere(run.id) ?? (await this.runs.get(run.id, options.principal));
    return { finished: isFinished(current.status), run: current };
  }

  /** Executes a run inside its `workflow.run` span: its nodes, model and tool calls become the span's children. */
  private runTraced(
    run: RunRecord,
    checked: CheckedDefinition,
    principal: Principal,
    signal: AbortSignal,
    depth: number,
    execution: Execution = {},
  ): Promise<RunResult> {
    const attributes = {
      'toolflow.run.id': run.id,
      'toolflow.run.depth': depth,
      ...(run.workflowId ? { 'toolflow.workflow.id': run.workflowId } : {}),
      ...(run.workflowVersion ? { 'toolflow.workflow.version': run.workflowVersion } : {}),
    };
    return inSpan('workflow.run', { attributes }, async (span) => {
      const result = await this.executeRun(run, checked, principal, signal, depth, execution);
      span.setAttribute('toolflow.run.status', result.status);
      if (result.status !== 'succeeded') markSpanFailed(span, result.error ?? result.status);
      return result;
    });
  }

  private async executeRun(
    run: RunRecord,
    checked: CheckedDefinition,
    principal: Principal,
    signal: AbortSignal,
    depth: number,
    { checkpoint, parent, startsNow = false, models }: Execution,
  ): Promise<RunResult> {
    const recording = models === undefined ? await this.recorderOf(run.id, checkpoint?.resumed === true) : undefined;
    const deltas = coalesceDeltas((type, data) => this.events.emit(run.id, type, data), DELTA_WINDOW_MS);
    const { emit } = deltas;
    // Counts as model and tool calls happen, so a failed or cancelled run keeps what it used; a resumed run
    // counts on from its checkpoint, its time included.
    const meter = new RunMeter({
      runId: run.id,
      budgets: run.budgets,
      startedAt: run.startedAt?.getTime() ?? Date.now(),
      signal,
      totals: checkpoint?.resumed ? checkpoint.totals : undefined,
      parent,
    });
    checkpoint?.countWith(() => meter.snapshot());
    const usage = meter.usage;
    this.liveMeters.set(run.id, meter);
    let result: RunResult;
    try {
      if (signal.aborted) throw signal.reason;
      // A resumed run keeps the start it had; one created running was stored started.
      if (run.status !== 'running' || startsNow) {
        if (!startsNow) await this.runs.markRunning(run.id);
        emit('run.started', { run_id: run.id, workflow_id: run.workflowId, inputs: run.inputs, depth });
      }
      const engineResult = await this.engine.run(checked.definition, checked.order, run.inputs, {
        runId: run.id,
        principal,
        depth,
        signal: meter.signal,
        emit,
        meter,
        checkpoint,
        resolvedTools: checked.tools,
        toolPins: run.toolPins ?? undefined,
        models: models ?? recording,
      });
      result = { status: 'succeeded', outputs: engineResult.outputs, stopReason: 'completed' };
    } catch (error) {
      const limit = meter.stopped;
      if (limit) {
        result = { status: 'failed', error: limit.message, stopReason: limit.stopReason };
      } else if (error instanceof AwaitingApprovalError && !meter.signal.aborted) {
        result = { status: 'waiting' };
      } else if (signal.aborted && signal.reason instanceof RunHandedBackError) {
        // A top-level run continues elsewhere (or after a restart); a child run is its parent's tool call, which the parent's resume decides about.
        result =
          run.parentRunId === null
            ? { status: 'handed_back' }
            : { status: 'failed', error: INTERRUPTED, stopReason: 'interrupted' };
      } else if (meter.signal.aborted) {
        result = { status: 'cancelled', error: errorMessage(meter.signal.reason ?? error), stopReason: 'cancelled' };
      } else {
        if (!(error instanceof WorkflowRunError)) this.logger.error({ err: error, runId: run.id }, 'run failed');
        result = { status: 'failed', error: errorMessage(error), stopReason: 'error' };
      }
    }
    deltas.flush();
    await recording?.flush();
    if (result.status === 'handed_back' || result.status === 'waiting') {
      // The time limit counts execution only: the time until the run goes on is left out of it.
      await checkpoint?.storeTotals().catch((error: unknown) => {
        this.logger.error({ err: error, runId: run.id }, 'could not store the totals of the run');
      });
    }
    this.liveMeters.delete(run.id);
    meter.dispose();
    if (
      result.status !== 'succeeded' &&
      result.status !== 'handed_back' &&
      result.status !== 'waiting' &&
      checkpoint?.resumed
    ) {
      await this.runs.closeRunningNodes(run.id, { status: result.status, error: result.error ?? result.status });
    }
    if (result.status === 'handed_back' || result.status === 'waiting') {
      await this.storeCallLogs(run.id);
      if (result.status === 'waiting') {
        // Every event is stored before the row says waiting, so that a decision's event is numbered after them.
        // Embedded, the log stays open here: live streams go on with the run once it resumes in this process.
        if (this.events.fansOut) await this.events.close(run.id);
        else await this.events.flush(run.id);
        await this.approvals.wait(run.id, usage);
      } else {
        await this.events.close(run.id);
      }
      return { ...result, usage };
    }
    await this.record(run.id, result, usage);
    return { ...result, usage };
  }

  /** The recorder of a run's model calls; a resumed run's calls are numbered on from the ones it recorded before. */
  private async recorderOf(runId: string, resumed: boolean): Promise<RecordingModelCalls> {
    const callsBefore = resumed
      ? await this.exchanges.callsPerNode(runId).catch((error: unknown) => {
          this.logger.error({ err: error, runId }, 'could not read the recorded model calls of the run');
          return new Map<string, number>();
        })
      : new Map<string, number>();
    return new RecordingModelCalls(
      (exchange) => this.exchanges.append(runId, exchange),
      (error) => this.logger.error({ err: error, runId }, 'could not record a model call of the run'),
      callsBefore,
    );
  }

  /** Stores how a run ended and ends its event log with `run.finished`. */
  private async record(
    runId: string,
    result: Exclude<RunResult, { status: 'handed_back' | 'waiting' }>,
    usage: UsageTotals | undefined,
  ): Promise<void> {
    let stored = false;
    try {
      await this.storeCallLogs(runId);
      await this.runs.finish(runId, { ...result, usage });
      stored = true;
    } finally {
      this.events.emit(runId, 'run.finished', {
        run_id: runId,
        status: result.status,
        outputs: result.outputs ?? null,
        error: result.error ?? null,
        usage: usage ?? null,
      });
      // Its row says how it ended and run.finished is in the log (live subscribers and replays of this process
      // read it from memory): a ?wait=true answer need not wait for that last INSERT.
      if (stored) this.endStoredWaiters.get(runId)?.();
      await this.events.close(runId);
    }
  }

  /** A resumed run's answered calls whose logs the process that executed it before had not written yet. */
  private async logCheckpointedCalls(
    run: RunRecord,
    checked: CheckedDefinition,
    checkpoint: RunCheckpointer,
  ): Promise<void> {
    await logCheckpointedCalls({
      runId: run.id,
      userId: run.userId,
      definition: checked.definition,
      handlers: this.engine.handlers,
      checkpoint,
      toolPins: run.toolPins ?? undefined,
      registry: this.registry,
    }).catch((error: unknown) => {
      this.logger.error({ err: error, runId: run.id }, 'could not store the tool call logs of the run');
    });
  }

  /** The run's tool call logs were written off the critical path; they are stored before it ends here. */
  private async storeCallLogs(runId: string): Promise<void> {
    await this.registry.flushRun(runId).catch((error: unknown) => {
      this.logger.error({ err: error, runId }, 'could not store the tool call logs of the run');
    });
  }
}
