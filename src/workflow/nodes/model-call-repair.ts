import type { ModelCallRepair } from '../../agent/agent-loop-options';

/**
 * The `repair` field of a model call's events (llm.usage, llm.call): the kind, the repaired calls and, for calls read
 * from the answer's text, `text`: what is left of the streamed llm.delta text once the calls are taken out.
 */
export const modelCallRepairMark = (
  repair: ModelCallRepair | undefined,
): { repair?: { kind: string; call_ids: string[]; text?: string } } =>
  repair === undefined
    ? {}
    : {
        repair: {
          kind: repair.kind,
          call_ids: repair.callIds,
          ...(repair.text !== undefined && { text: repair.text }),
        },
      };
