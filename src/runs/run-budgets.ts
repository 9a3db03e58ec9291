import { type Static, Type } from '@sinclair/typebox';

/**
 * A run's own limits, counted over all of its nodes and the workflow-tool runs it starts. One shape for the
 * definition's top level, the run request body, the OpenAPI document and the stored run.
 */
export const RUN_BUDGET_PROPERTIES = {
  max_total_tokens: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Tokens (total_tokens) every model call of the run may use together. Each call is capped to what is left ' +
        'after its prompt; a call that cannot hold its prompt plus a short answer is not made and ends the run, as ' +
        'does reaching it',
    }),
  ),
  max_tool_calls: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100_000,
      description: 'Tool calls the run may start; the one after the last ends the run instead of starting',
    }),
  ),
  max_cost: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000_000,
      description:
        "Money every model call of the run may cost together, in the models' price currency (USD unless configured; " +
        'see GET /providers). Reaching it ends the run; so does a model call whose cost is unknown (no price), since ' +
        'the budget could not be kept',
    }),
  ),
  timeout_ms: Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: 604_800_000,
      description: 'Time limit of the run, counting the time it executes: time it waits for an approval does not count',
    }),
  ),
};

export const RUN_BUDGETS_SCHEMA = Type.Object(RUN_BUDGET_PROPERTIES, { additionalProperties: false });
export type RunBudgets = Static<typeof RUN_BUDGETS_SCHEMA>;
export const RUN_BUDGET_FIELDS = Object.keys(RUN_BUDGET_PROPERTIES) as Array<keyof RunBudgets>;

/** Why a run ended: the run budgets each have their own, apart from a node's failure. */
export const RUN_STOP_REASONS = [
  'completed',
  'error',
  'cancelled',
  'interrupted',
  'run_token_budget',
  'run_tool_call_budget',
  'run_cost_budget',
  'run_timeout',
] as const;
export type RunStopReason = (typeof RUN_STOP_REASONS)[number];
export type RunLimitStopReason = Extract<
  RunStopReason,
  'run_token_budget' | 'run_tool_call_budget' | 'run_cost_budget' | 'run_timeout'
>;
