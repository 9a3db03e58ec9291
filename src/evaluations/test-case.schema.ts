import { type Static, type TObject, Type } from '@sinclair/typebox';
import { enumOf, freeObject } from '../json-schema/schema-helpers';
import { RUN_BUDGET_PROPERTIES } from '../runs/run-budgets';

const text = (description: string) => Type.String({ description });
const count = (description: string) => Type.Integer({ minimum: 0, description });

/** Each kind of assertion a case may make about its run; `type` names it. */
const ASSERTION_PROPERTIES = {
  text_equals: { type: Type.Literal('text_equals'), value: text('The final text, exactly') },
  text_contains: { type: Type.Literal('text_contains'), value: text('Text the final text contains') },
  text_matches: {
    type: Type.Literal('text_matches'),
    pattern: text('A regular expression (RE2 syntax) the final text matches somewhere'),
  },
  data_schema: {
    type: Type.Literal('data_schema'),
    schema: freeObject({ description: 'A JSON Schema the run output `data` is valid against' }),
  },
  data_subset: {
    type: Type.Literal('data_subset'),
    value: Type.Unknown({ description: 'What `data` holds: every key given here equal, others free' }),
  },
  tool_called: {
    type: Type.Literal('tool_called'),
    name: text('The tool'),
    arguments_subset: Type.Optional(freeObject({ description: 'One of its calls had at least these arguments' })),
    arguments_schema: Type.Optional(freeObject({ description: "One of its calls' arguments are valid against it" })),
  },
  tool_not_called: { type: Type.Literal('tool_not_called'), name: text('The tool') },
  max_tool_calls: { type: Type.Literal('max_tool_calls'), max: count('Tool calls of the run ≤ max') },
  stop_reason: {
    type: Type.Literal('stop_reason'),
    equals: text("The last LLM node's stop_reason (answered, max_iterations …), else the run's"),
  },
  max_tokens: { type: Type.Literal('max_tokens'), max: count('total_tokens of the run ≤ max') },
  max_duration_ms: { type: Type.Literal('max_duration_ms'), max: count('duration_ms of the run ≤ max') },
  judge: {
    type: Type.Literal('judge'),
    prompt: text('What the judge model grades the final text on'),
    provider: text('A configured provider name'),
    model: Type.Optional(text("Default the provider's default_model")),
    threshold: Type.Number({ minimum: 0, maximum: 1, description: 'Passes when the score (0…1) is at least this' }),
  },
};

/** Each assertion's schema: unknown fields refused. */
export const ASSERTION_SCHEMAS = Object.fromEntries(
  Object.entries(ASSERTION_PROPERTIES).map(([type, properties]) => [
    type,
    Type.Object(properties, { additionalProperties: false }),
  ]),
) as unknown as { [K in keyof typeof ASSERTION_PROPERTIES]: TObject<(typeof ASSERTION_PROPERTIES)[K]> };

export type AssertionType = keyof typeof ASSERTION_SCHEMAS;
export const ASSERTION_TYPES = Object.keys(ASSERTION_SCHEMAS) as AssertionType[];
export type Assertion = { [K in AssertionType]: Static<(typeof ASSERTION_SCHEMAS)[K]> }[AssertionType];

const Message = Type.Object(
  { role: enumOf(['user', 'assistant']), content: Type.String() },
  { additionalProperties: false },
);

export const TEST_CASE_SCHEMA = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Unique within the suite; results compare by it' }),
    inputs: Type.Optional(freeObject({ description: 'The run inputs' })),
    conversation: Type.Optional(
      Type.Array(Message, {
        minItems: 1,
        description: 'Earlier turns, passed as the input `messages` (an LLM node reads them with {{inputs.messages}})',
      }),
    ),
    assertions: Type.Array(Type.Union(Object.values(ASSERTION_SCHEMAS)), {
      description: 'Every one must pass for the case to pass',
    }),
    budgets: Type.Optional(
      Type.Object(RUN_BUDGET_PROPERTIES, { additionalProperties: false, description: "The case's run budgets" }),
    ),
    cassette: Type.Optional(
      freeObject({
        description: 'A recording (GET /runs/{id}/cassette) the case replays offline instead of calling models',
      }),
    ),
  },
  { additionalProperties: false },
);

export type TestCase = Omit<Static<typeof TEST_CASE_SCHEMA>, 'assertions'> & { assertions: Assertion[] };

export const SUITE_BODY_SCHEMA = Type.Object(
  {
    cases: Type.Optional(Type.Array(TEST_CASE_SCHEMA, { maxItems: 1000 })),
    jsonl: Type.Optional(Type.String({ description: 'Cases as JSON Lines, one case per line (instead of `cases`)' })),
  },
  { additionalProperties: false },
);
