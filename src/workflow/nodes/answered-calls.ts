import { SEARCH_TOOLS } from '../../shared/reserved-tool-names';
import type { AgentToolCallStatus, ToolCallStatus } from '../../shared/tool-call-status';
import type { AnsweredCall } from './node-handler';
import type { AgentToolCallRecord } from '../../agent/agent-loop-result';
import type { AgentLoopCheckpoint } from '../../agent/loop-checkpoint';

/**
 * Whether the loop answered the call through its hooks (executeTool, onUnrunCall), which log it: not a call it
 * skipped, a malformed one, or search_tools, which it answers itself.
 */
const isHookAnswered = (name: string, status: AgentToolCallStatus): status is ToolCallStatus =>
  status !== 'skipped' && status !== 'malformed' && name !== SEARCH_TOOLS;

/** The logged calls among the records of a loop (a checkpoint's or a finished node's `tool_calls`). */
export function answeredCallsOfRecords(records: readonly AgentToolCallRecord[]): AnsweredCall[] {
  return records.flatMap(({ id, name, arguments: args, status, response, duration_ms, repair }) =>
    isHookAnswered(name, status)
      ? [{ id, name, arguments: args, status, response, duration_ms, ...(repair && { repair }) }]
      : [],
  );
}

/** The logged calls a loop's checkpoint holds as answered: those of earlier rounds, then the round's answered ones. */
export function answeredCallsOfCheckpoint(checkpoint: AgentLoopCheckpoint): AnsweredCall[] {
  const round = (checkpoint.round?.calls ?? []).flatMap(({ call, answer, skipResponse, approvedArguments }) =>
    answer !== undefined && skipResponse === undefined && isHookAnswered(call.name, answer.status)
      ? [
          {
            id: call.id,
            name: call.name,
            // Arguments a person edited replaced the model's: the call ran with them.
            arguments: approvedArguments ?? call.arguments,
            status: answer.status,
            response: answer.response,
            duration_ms: answer.durationMs,
            // The answer's mark also knows a repair of the arguments alone.
            ...((answer.repair ?? call.repair) && { repair: answer.repair ?? call.repair }),
          },
        ]
      : [],
  );
  return [...answeredCallsOfRecords(checkpoint.toolCalls), ...round];
}
