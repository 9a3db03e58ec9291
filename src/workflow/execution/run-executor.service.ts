import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../../common/auth/principal';
import { inSpan, markSpanFailed } from '../../common/tracing';
import { CallLogWriter } from '../../call-logs/call-log-writer.service';
import type { UsageTotals } from '../../runs/run.entity';
import type { RunStopReason } from '../../runs/run-budgets';
import type { RunRecord } from '../../runs/run-record';
import { RunEventsService } from '../../runs/run-events.service';
import { isFinished } from '../../runs/run.entity';
import {
  type CreatedHere,
  INTERRUPTED,
  RunHandedBackError,
  RunLeaseLostError,
  type RunExecutor,
  type RunStop,
} from '../../runs/run-supervisor';
import { RunsService } from '../../runs/runs.service';
import { NodeRunsService } from '../../runs/node-runs.service';
import { RunCheckpointStore } from '../../runs/run-checkpoint-store';
import { ApprovalsService } from '../../runs/approvals.service';
import { ModelExchangesService } from '../../runs/model-exchanges.service';
import { errorMessage } from '../../shared/error-text';
import { AwaitingApprovalError } from '../../agent/approval-gate';
import type { ModelCalls } from '../recording/model-calls';
import { RecordingModelCalls } from '../recording/recording-model-calls';
import { coalesceDeltas } from '../delta-coalescer';
import { logCheckpointedCalls } from '../checkpointed-call-logs';
import { type CheckedDefinition, DefinitionChecker } from '../definition-checker.service';
import { finishedOutputs, RunCheckpointer, toRunState } from './run-checkpointer';
import { RunMeter } from './run-meter';
import { type EndedNodeRun, WorkflowEngine } from './engine';
import { WorkflowRunError } from './run-context';
import { nextTurn } from '../../shared/next-turn';

export const WORKFLOW_ENGINE = Symbol('WORKFLOW_ENGINE');

export type RunResult =
  | {
      status: 'succeeded' | 'failed' | 'cancelled';
      outputs?: Record<string, unknown>;
      error?: string;
      usage?: UsageTotals;
      stopReason?: RunStopReason;
    }
  | { status: 'handed_back'; error?: undefined; usage?: UsageTotals }
  | { status: 'waiting'; error?: undefined; usage?: UsageTotals };

type EndResult = Exclude<RunResult, { status: 'handed_back' | 'waiting' }>;

/** Streamed deltas of one stream within this long are one event (and one stored row); the event log waits as long to store a batch. */
const DELTA_WINDOW_MS = 50;

/** How a run executes here. */
export interface Execution {
  checkpoint?: RunCheckpointer;
  /** The meter of the run whose tool call this run is. */
  parent?: RunMeter;
  /** The run was stored running when it was created (NewRun.startsNow) and has not executed yet. */
  startsNow?: boolean;
  /** How its LLM nodes reach their providers; absent: recorded (see RecordingModelCalls). */
  models?: ModelCalls;
  /** Told once its end is stored (CreatedHere.endStored). */
  endStored?: () => void;
  /** The lease it executes under (queue mode): its end is stored only while this owner holds the run. */
  leaseOwner?: string;
}

/** Who a stored run executes as: its owner, with the role the owner had when the run was created. */
const ownerOf = (run: RunRecord): Principal => ({ userId: run.userId, role: run.userRole, keyId: 'run-owner' });

const stopOf = (status: string): RunStop => (isFinished(status) ? 'ended' : 'waiting');

/**
 * Executes runs with the engine and records how they end. As RUN_EXECUTOR it executes any stored run from the
 * database alone (a new one, or one resumed after a restart); `executeHere` executes a run its starter just created
 * (a child run of a workflow tool, a replay) in the caller's process.
 */
@Injectable()
export class WorkflowRunExecutor implements RunExecutor {
  private readonly logger = new Logger(WorkflowRunExecutor.name);
  /** The meters of the runs executing here, so a child workflow-tool run counts against its parent's budgets too. */
  private readonly liveMeters = new Map<string, RunMeter>();

  constructor(
    private readonly runs: RunsService,
    private readonly nodeRuns: NodeRunsService,
    private readonly events: RunEventsService,
    private readonly checker: DefinitionChecker,
    private readonly callLogs: CallLogWriter,
    @Inject(WORKFLOW_ENGINE) private readonly engine: WorkflowEngine,
    private readonly checkpoints: RunCheckpointStore,
    private readonly approvals: ApprovalsService,
    private readonly exchanges: ModelExchangesService,
  ) {}

  /** The meter of a run executing in this process. */
  meterOf(runId: string): RunMeter | undefined {
    return this.liveMeters.get(runId);
  }

  /** RUN_EXECUTOR: executes a stored run, rebuilt from its row, until it ends, waits, or is handed back. */
  async execute(runId: string, signal: AbortSignal, created?: CreatedHere, leaseOwner?: string): Promise<RunStop> {
    const run = created?.run ?? (await this.runs.record(runId));
    if (!run || isFinished(run.status)) return 'ended';
    // A run that never started has no stored events (an api process adds some only once it ended or waits).
    if (!created && (run.status !== 'queued' || run.startedAt !== null)) await this.events.openStored(run.id);
    let checked: CheckedDefinition;
    try {
      const version = run.workflowId ? `${run.workflowId}@${run.workflowVersion}` : undefined;
      checked = { ...this.checker.executionPlan(run.definition, version), tools: created?.tools };
    } catch (error) {
      const stored = await this.record(run.id, { status: 'failed', error: errorMessage(error) }, undefined, {
        endStored: created?.endStored,
        leaseOwner,
      });
      return stored ? 'ended' : 'handed_back';
    }
    // A run that started before (a restart, a hand-back) goes on from its checkpoint; one stored running when it
    // was created here has not executed yet.
    const startsNow = created !== undefined && run.status === 'running';
    const resumed = run.startedAt !== null && !startsNow;
    const state = toRunState(resumed ? await this.checkpoints.load(run.id) : null);
    if (resumed) await this.nodeRuns.closeFinishedNodes(run.id, finishedOutputs(state));
    const checkpoint = new RunCheckpointer(run.id, this.checkpoints, state, resumed);
    if (resumed) await this.logCheckpointedCalls(run, checked, checkpoint);
    const result = await this.executeHere(run, checked, ownerOf(run), signal, run.depth, {
      checkpoint,
      startsNow,
      endStored: created?.endStored,
      leaseOwner,
    });
    if (result.status === 'handed_back' || result.status === 'waiting') return result.status;
    return stopOf(result.status);
  }

  /** Executes a run inside its `workflow.run` span: its nodes, model and tool calls become the span's children. */
  executeHere(
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
    { checkpoint, parent, startsNow = false, models, endStored, leaseOwner }: Execution,
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
    let unstored: EndedNodeRun[] = [];
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
      ({ unstored } = engineResult);
    } catch (error) {
      result = this.resultOfFailure(run, error, signal, meter);
    }
    deltas.flush();
    await recording?.flush();
    // A worker that lost the run's lease stores nothing more: its checkpoint is the new owner's now.
    const leaseLost = signal.reason instanceof RunLeaseLostError;
    if (result.status === 'waiting' || (result.status === 'handed_back' && !leaseLost)) {
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
      await this.nodeRuns.closeRunningNodes(run.id, { status: result.status, error: result.error ?? result.status });
    }
    if (result.status === 'handed_back' || result.status === 'waiting') {
      await this.storeCallLogs(run.id);
      if (result.status === 'waiting') {
        await this.events.pause(run.id);
        await this.approvals.wait(run.id, usage);
      } else {
        await this.events.close(run.id);
      }
      return { ...result, usage };
    }
    if (!(await this.record(run.id, result, usage, { endStored, leaseOwner }, unstored)))
      return { status: 'handed_back', usage };
    return { ...result, usage };
  }

  /** How a run ended whose engine threw: a limit, a wait for approval, a hand-back, a cancel, or a failure. */
  private resultOfFailure(run: RunRecord, error: unknown, signal: AbortSignal, meter: RunMeter): RunResult {
    const limit = meter.stopped;
    if (limit) return { status: 'failed', error: limit.message, stopReason: limit.stopReason };
    if (error instanceof AwaitingApprovalError && !meter.signal.aborted) return { status: 'waiting' };
    if (signal.aborted && signal.reason instanceof RunHandedBackError) {
      // A top-level run continues elsewhere (or after a restart); a child run is its parent's tool call, which the parent's resume decides about.
      return run.parentRunId === null
        ? { status: 'handed_back' }
        : { status: 'failed', error: INTERRUPTED, stopReason: 'interrupted' };
    }
    if (meter.signal.aborted) {
      return { status: 'cancelled', error: errorMessage(meter.signal.reason ?? error), stopReason: 'cancelled' };
    }
    if (!(error instanceof WorkflowRunError)) this.logger.error({ err: error, runId: run.id }, 'run failed');
    return { status: 'failed', error: errorMessage(error), stopReason: 'error' };
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

  /**
   * Stores how a run ended and ends its event log with `run.finished`. False when the execution had lost the run's
   * lease (`leaseOwner` no longer holds it): another worker executes it, so its end and its log are left to that one.
   */
  private async record(
    runId: string,
    result: EndResult,
    usage: UsageTotals | undefined,
    { endStored, leaseOwner }: Pick<Execution, 'endStored' | 'leaseOwner'>,
    /** Node runs of pure nodes that ended last (EngineResult.unstored), stored with the run's end. */
    ended: readonly EndedNodeRun[] = [],
  ): Promise<boolean> {
    let stored = false;
    let leaseLost = false;
    try {
      await this.storeCallLogs(runId);
      leaseLost = !(await this.runs.finish(runId, { ...result, usage }, leaseOwner, ended));
      stored = !leaseLost;
    } finally {
      if (leaseLost) {
        this.logger.warn({ runId }, 'a run ended on a worker that no longer held its lease: its new owner ends it');
      } else {
        this.events.emit(runId, 'run.finished', {
          run_id: runId,
          status: result.status,
          outputs: result.outputs ?? null,
          error: result.error ?? null,
          usage: usage ?? null,
        });
      }
      // Its row says how it ended and run.finished is in the log (live subscribers and replays of this process
      // read it from memory): a ?wait=true answer need not wait for that last INSERT, which goes out after it.
      if (stored) endStored?.();
      await nextTurn();
      await this.events.close(runId);
    }
    return stored;
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
      callLogs: this.callLogs,
    }).catch((error: unknown) => {
      this.logger.error({ err: error, runId: run.id }, 'could not store the tool call logs of the run');
    });
  }

  /** The run's tool call logs were written off the critical path; they are stored before it ends here. */
  private async storeCallLogs(runId: string): Promise<void> {
    await this.callLogs.flushRun(runId).catch((error: unknown) => {
      this.logger.error({ err: error, runId }, 'could not store the tool call logs of the run');
    });
  }
}
