import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ToolCallRecord } from '../call-logs/call-record';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import type { NodeRunEntity } from './node-run.entity';
import type { RunRecord } from './run-record';

export type NodeRunRow = Pick<
  NodeRunEntity,
  'id' | 'nodeId' | 'nodeType' | 'status' | 'output' | 'error' | 'startedAt' | 'finishedAt'
>;

/** What a journaled run has written so far, as the database holds it. */
export interface JournaledRun {
  run: RunRecord;
  nodes: Map<string, NodeRunRow>;
  calls: ToolCallRecord[];
  /** Set once `finish` stored how the run ended. */
  finished: boolean;
}

type RunChanges = Partial<
  Pick<RunRecord, 'status' | 'outputs' | 'error' | 'usage' | 'stopReason' | 'startedAt' | 'finishedAt'>
>;

/**
 * A copy of every row a run writes while it executes in this process, for the run a `?wait=true` request started
 * here: once the run ended, the answer comes from this copy instead of reading the run, its node runs and its
 * call logs back. Each change is noted after its write succeeded. A write the journal does not mirror (a cancel,
 * a wait for approval, a resume) drops the run, and the answer is read from the database as before.
 */
@Injectable()
export class RunJournal implements OnModuleDestroy {
  private readonly runs = new Map<string, JournaledRun>();
  private readonly stopObserving: () => void;

  constructor(toolCalls: ToolCallLogsService) {
    this.stopObserving = toolCalls.observe((record) => {
      if (record.runId !== null) this.runs.get(record.runId)?.calls.push(record);
    });
  }

  onModuleDestroy(): void {
    this.stopObserving();
  }

  /** Starts the copy of a run that was just created and has not executed yet. */
  track(run: RunRecord): void {
    this.runs.set(run.id, { run, nodes: new Map(), calls: [], finished: false });
  }

  /** The copy of a run whose end was stored, and forgets it; undefined when it has none (or the run did not end). */
  take(runId: string): JournaledRun | undefined {
    const journaled = this.runs.get(runId);
    this.runs.delete(runId);
    return journaled?.finished ? journaled : undefined;
  }

  drop(runId: string): void {
    this.runs.delete(runId);
  }

  runChanged(runId: string, changes: RunChanges, finished = false): void {
    const journaled = this.runs.get(runId);
    if (!journaled) return;
    journaled.run = { ...journaled.run, ...changes };
    if (finished) journaled.finished = true;
  }

  nodeWritten(runId: string, row: NodeRunRow): void {
    this.runs.get(runId)?.nodes.set(row.id, row);
  }

  /** A node run changed; the caller knows only its id, and few runs have a copy at once. */
  nodeChanged(nodeRunId: string, changes: Partial<NodeRunRow>): void {
    for (const journaled of this.runs.values()) {
      const row = journaled.nodes.get(nodeRunId);
      if (row) {
        journaled.nodes.set(nodeRunId, { ...row, ...changes });
        return;
      }
    }
  }
}
