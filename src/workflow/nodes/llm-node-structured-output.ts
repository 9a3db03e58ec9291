import { Type } from '@sinclair/typebox';
import { freeObject } from '../../json-schema/schema-helpers';
import { ArgumentValidator } from '../../json-schema/argument-validator';
import { checkParametersSchema } from '../../json-schema/check-parameters-schema';
import { formatArgumentError } from '../../json-schema/format-argument-errors';
import { strictModeProblem } from '../../json-schema/strict-schema';
import type { ResponseFormat } from '../../llm/provider';
import { errorMessage } from '../../shared/error-text';
import type { JsonSchema } from '../../shared/tool-types';
import type { AnswerCheck, AnswerVerdict } from '../../agent/answer-check';
import type { DataProblem } from './node-handler';

export const DEFAULT_OUTPUT_RETRIES = 1;

/** The LLM node's structured-output fields (see docs/workflows.md, "Structured output"). */
export const structuredOutputFields = {
  output_schema: Type.Optional(
    freeObject({
      description:
        'JSON Schema (root "type": "object") the final answer must match: sent with the protocol\'s own ' +
        'structured-output setting and checked on every answer; the parsed answer is the output `data`',
    }),
  ),
  output_retries: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 5,
      default: DEFAULT_OUTPUT_RETRIES,
      description: 'Answers that fail output_schema sent back to the model with the errors before the node fails',
    }),
  ),
};

/** Problems of an `output_schema`, checked like a tool's parameters (valid schema, root object, safe patterns). */
export const checkOutputSchema = (schema: JsonSchema): DataProblem[] =>
  checkParametersSchema(schema).problems.map((problem) => ({
    field: `output_schema${problem.path.replace(/\//g, '.')}`,
    message: problem.message.replace('a parameters schema', 'an output_schema'),
  }));

/**
 * What the provider is asked for: strict mode when the schema allows it (OpenAI refuses strict mode for other
 * schemas), else `strict: false`, and the answer is held to the schema by our own validation either way.
 */
export const responseFormatFor = (nodeId: string, schema: JsonSchema): ResponseFormat => ({
  name: nodeId.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'output',
  schema,
  strict: strictModeProblem(schema) === null,
});

// One validator (the service's ajv, see createAjv) for every node's schema, keyed by the schema's text.
const validator = new ArgumentValidator({ cacheSize: 200 });

/** `fenced`: the answer was one ```json (or ```) fenced block, read without its fence. */
export type OutputRepair = 'fenced';

export type StructuredAnswer = { ok: true; data: unknown; repaired?: OutputRepair } | { ok: false; errors: string[] };

// The whole answer one fenced block: models often fence JSON though asked for the value alone.
const FENCED = /^\s*```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```\s*$/i;

/** The answer as JSON: as written, else (the whole answer one fenced block) without its fence. */
function parseAnswer(
  answer: string,
): { ok: true; data: unknown; repaired?: OutputRepair } | { ok: false; error: string } {
  try {
    return { ok: true, data: JSON.parse(answer) };
  } catch (error) {
    const fenced = FENCED.exec(answer);
    if (fenced) {
      try {
        return { ok: true, data: JSON.parse(fenced[1]), repaired: 'fenced' };
      } catch {
        // Fenced, but not JSON inside either: the error of the answer as written.
      }
    }
    return { ok: false, error: errorMessage(error) };
  }
}

/**
 * The answer parsed as JSON and validated against `schema`; the errors name each field that fails. An answer
 * that is one ```json fenced block whose content parses and matches is accepted, marked `repaired: 'fenced'`.
 */
export function readStructuredAnswer(answer: string, schema: JsonSchema): StructuredAnswer {
  const parsed = parseAnswer(answer);
  if (!parsed.ok) return { ok: false, errors: [`the answer is not JSON: ${parsed.error}`] };
  const { data, repaired } = parsed;
  let result;
  try {
    result = validator.validate(`output_schema:${JSON.stringify(schema)}`, schema, data);
  } catch (error) {
    // Checked when the workflow was saved; a schema that still does not compile fails the answer, not the run.
    return { ok: false, errors: [`output_schema cannot be used: ${errorMessage(error)}`] };
  }
  if (!result.ok) return { ok: false, errors: result.errors.map(formatArgumentError) };
  return repaired === undefined ? { ok: true, data } : { ok: true, data, repaired };
}

const feedback = (errors: readonly string[]): string =>
  [
    'Your answer does not match the required JSON Schema:',
    ...errors.map((error) => `- ${error}`),
    'Answer again with only the JSON value, corrected.',
  ].join('\n');

/** The loop's check of each final answer against `schema`, sending a failing one back `retries` times. */
export const outputSchemaCheck = (schema: JsonSchema, retries: number): AnswerCheck => ({
  retries,
  check: (answer): AnswerVerdict => {
    const read = readStructuredAnswer(answer, schema);
    return read.ok ? { ok: true } : { ok: false, problems: read.errors, feedback: feedback(read.errors) };
  },
});
