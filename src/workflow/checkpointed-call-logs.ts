import { toCallRecord, type ToolCallRecord } from '../call-logs/call-record';
import type { CallLogWriter } from '../call-logs/call-log-writer.service';
import type { ToolPins } from '../tools/stored-tool';
import type { WorkflowDefinition } from './definition.schema';
import type { NodeHandler } from './nodes/node-handler';
import type { RunCheckpointer } from './execution/run-checkpointer';

export interface CheckpointedCallLogs {
  runId: string;
  userId: string;
  definition: WorkflowDefinition;
  handlers: Readonly<Record<string, NodeHandler>>;
  checkpoint: RunCheckpointer;
  toolPins: ToolPins | undefined;
  callLogs: Pick<CallLogWriter, 'logUnloggedCalls'>;
}

/**
 * For a run that resumes from its checkpoint: writes the log rows (and use counts) of the calls the checkpoint holds
 * as answered that have none. Call logs are written per round, beside the checkpoint of the next model answer, so a
 * process that died may have stored a call's result and not yet its log. What the checkpoint does not keep is
 * filled in honestly: `started_at` is now (the call's start is not stored), `duration_ms` is the one measured.
 * Returns the calls it logged.
 */
export async function logCheckpointedCalls(options: CheckpointedCallLogs): Promise<ToolCallRecord[]> {
  const { runId, userId, definition, handlers, checkpoint, toolPins } = options;
  const startedAt = new Date();
  const calls = definition.nodes.flatMap((node) => {
    const state = checkpoint.nodeState(node.id);
    const answered = state ? (handlers[node.type]?.answeredCalls?.(state) ?? []) : [];
    return answered.map((call) => {
      const tool = toolPins && Object.hasOwn(toolPins, call.name) ? toolPins[call.name] : undefined;
      const success = call.status === 'success';
      return toCallRecord(
        call,
        { tool, runId, nodeId: node.id, userId },
        {
          output: success ? call.response : null,
          status: call.status,
          errorMessage: success ? null : call.response,
          durationMs: call.duration_ms,
          startedAt,
        },
      );
    });
  });
  return options.callLogs.logUnloggedCalls(runId, calls);
}
