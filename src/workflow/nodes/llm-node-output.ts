import { Type } from '@sinclair/typebox';
import { enumOf } from '../../json-schema/schema-helpers';
import { TOOL_CALL_STATUSES } from '../../shared/tool-call-status';
import { redactJsonText } from '../../shared/json-text-redactor';
import { isRecord } from '../../shared/is-record';
import type { AgentLoopResult } from '../../agent/agent-loop-result';
import { AGENT_STOP_REASONS } from '../../agent/stop-reason';
import { type OutputShape, outputObject, replacedBy } from './output-shape';

const ANSWER = 'The final answer';

const TOOL_CALL = outputObject({
  id: Type.String(),
  name: Type.String({ description: 'The tool the model called' }),
  arguments: Type.String({ description: 'The arguments as JSON text (credentials masked)' }),
  status: enumOf([...TOOL_CALL_STATUSES, 'skipped', 'malformed']),
  response: Type.String({ description: 'What the model got back (cut when long)' }),
  duration_ms: Type.Number(),
});

const COST = outputObject({ amount: Type.Number(), currency: Type.String() });

const FIELDS = {
  text: Type.String({ description: ANSWER }),
  output: Type.String(replacedBy('text', ANSWER)),
  reasoning: Type.String({ description: "The model's reasoning, every call's in order (empty when none)" }),
  stop_reason: enumOf(AGENT_STOP_REASONS, { description: 'Why the node ended' }),
  iterations_used: Type.Integer({ description: 'Model calls that requested tools' }),
  tool_calls: Type.Array(TOOL_CALL, { description: 'Every tool call, in order' }),
  usage: outputObject({
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
    model_calls: Type.Integer(),
    cost: Type.Union([COST, Type.Null()], {
      description: "What the node's model calls cost; null when a model has no known price",
    }),
  }),
  offered_tools: Type.Array(Type.Array(Type.String()), { description: 'The tools offered to each model call' }),
};

/** What an LLM node outputs; `data`, the answer parsed, when the node sets an `output_schema`. */
export function llmNodeOutputShape(data: object): OutputShape {
  const schema = (data as { output_schema?: unknown }).output_schema;
  if (!isRecord(schema)) return outputObject(FIELDS);
  return outputObject({
    ...FIELDS,
    data: Type.Unsafe({ ...schema, description: 'The answer parsed' }),
    output_retries: Type.Integer({ description: 'Answers sent back because they did not match output_schema' }),
    output_repaired: Type.Union([Type.Literal('fenced'), Type.Null()], {
      description: '`fenced` when the answer was one ```json fenced block, read without its fence; else null',
    }),
  });
}

/** An LLM node's output from the loop's result (`offered_tools` is added by the node). */
export const llmNodeOutput = (result: AgentLoopResult, secretArguments?: ReadonlySet<string>) => ({
  text: result.output,
  output: result.output,
  reasoning: result.reasoning,
  stop_reason: result.stopReason,
  iterations_used: result.iterationsUsed,
  // The model may have written credentials into its arguments: what is stored and shown is masked.
  tool_calls: result.toolCalls.map((call) => ({ ...call, arguments: redactJsonText(call.arguments, secretArguments) })),
  usage: {
    prompt_tokens: result.usage.promptTokens,
    completion_tokens: result.usage.completionTokens,
    total_tokens: result.usage.totalTokens,
    model_calls: result.usage.modelCalls,
    ...(result.usage.cost !== undefined && { cost: result.usage.cost }),
  },
});
