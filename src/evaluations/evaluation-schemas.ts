import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ANY_JSON } from '../common/http/any-json';
import { DIVERGENCE_KINDS } from '../workflow/recording/divergence';
import { CASSETTE_SCHEMA } from './cassette';
import { ASSERTION_TYPES, SUITE_BODY_SCHEMA, TEST_CASE_SCHEMA } from './test-case.schema';

/** A JSON Schema (TypeBox or literal) as the OpenAPI decorators take it. */
export const openApi = (schema: object): SchemaObject => JSON.parse(JSON.stringify(schema)) as SchemaObject;

const nullable = (type: string) => ({ type, nullable: true });

/** A cost or a cost difference; null when unknown (a model with no price), never a made-up 0. */
const COST = (description: string) => ({
  type: 'object',
  nullable: true,
  required: ['amount', 'currency'],
  properties: {
    amount: { type: 'number', description: "In the currency's main unit (dollars, not cents)" },
    currency: { type: 'string', example: 'USD' },
  },
  description,
});

export const DIVERGENCE_SCHEMA = openApi({
  type: 'object',
  required: ['kind', 'node_id', 'call_index', 'description'],
  properties: {
    kind: { type: 'string', enum: [...DIVERGENCE_KINDS] },
    node_id: { type: 'string' },
    item: {
      type: 'string',
      example: 'each[2]',
      description: 'The map item or loop iteration the node ran in (absent: outside any)',
    },
    call_index: { type: 'integer', description: 'Which model call of the node in its item, from 0' },
    message_index: { type: 'integer', description: 'The message of the request that differs' },
    tool: { type: 'string', description: 'The tool whose definition or call arguments differ' },
    path: { type: 'string', example: 'parameters.properties.city.type' },
    offset: {
      type: 'integer',
      description: 'When both sides are text at `path`: the first character (from 0) at which they differ',
    },
    expected: { ...ANY_JSON, description: 'What the recording has there' },
    actual: { ...ANY_JSON, description: 'What the replay sent there' },
    description: {
      type: 'string',
      description: 'One line naming where it differs, quoting a short excerpt of each side (not whole prompts)',
    },
  },
});

export const REPLAY_REPORT_SCHEMA = openApi({
  type: 'object',
  properties: {
    replayed_run_id: nullable('string'),
    run_id: { type: 'string', description: 'The replay run (GET /runs/{id})' },
    reproduced: { type: 'boolean', description: 'No divergence, and it ended like the recorded run, outputs equal' },
    tools: { type: 'string', enum: ['live', 'recorded'] },
    definition: { type: 'string', enum: ['current', 'recorded'] },
    divergence: { oneOf: [DIVERGENCE_SCHEMA, { type: 'null' }] },
    status: { type: 'string' },
    recorded_status: nullable('string'),
    outputs: { oneOf: [{ type: 'object' }, { type: 'null' }] },
    recorded_outputs: { oneOf: [{ type: 'object' }, { type: 'null' }] },
  },
});

export const SUITE_BODY = openApi(SUITE_BODY_SCHEMA);

export const TEST_SUITE_SCHEMA = openApi({
  type: 'object',
  properties: {
    id: { type: 'string' },
    workflow_id: { type: 'string' },
    cases: { type: 'array', items: TEST_CASE_SCHEMA },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
});

const ASSERTION_RESULT = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ASSERTION_TYPES },
    passed: { type: 'boolean' },
    actual: { ...ANY_JSON, description: 'What the run had' },
    message: { type: 'string' },
    deterministic: { type: 'boolean', description: 'False for `judge` (model-graded)' },
  },
};

export const TEST_RUN_SCHEMA = openApi({
  type: 'object',
  properties: {
    id: { type: 'string' },
    workflow_id: { type: 'string' },
    workflow_version: nullable('integer'),
    status: {
      type: 'string',
      enum: ['running', 'passed', 'failed'],
      description: '`running` until every case ended; `failed` with `error` when it ended early',
    },
    error: {
      ...nullable('string'),
      description:
        'Why the test run ended before its cases did, e.g. "interrupted: the process running it stopped at …" ' +
        '(the results of the cases that ended are kept); null otherwise',
    },
    progress: {
      type: 'object',
      required: ['done', 'total'],
      description: 'Cases ended of all the test run’s cases',
      properties: { done: { type: 'integer', example: 3 }, total: { type: 'integer', example: 10 } },
    },
    summary: {
      type: 'object',
      properties: {
        cases: { type: 'integer' },
        passed: { type: 'integer' },
        failed: { type: 'integer' },
        total_tokens: { type: 'integer' },
        duration_ms: { type: 'integer' },
        cost: COST('The cases’ runs’ cost added up; null when any has no known price'),
      },
    },
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          passed: { type: 'boolean' },
          run_id: { ...nullable('string'), description: 'The run to open (its trace)' },
          run_status: nullable('string'),
          replayed: { type: 'boolean' },
          divergence: { oneOf: [DIVERGENCE_SCHEMA, { type: 'null' }] },
          error: nullable('string'),
          assertions: { type: 'array', items: ASSERTION_RESULT },
          total_tokens: { type: 'integer' },
          duration_ms: nullable('integer'),
          cost: COST(
            'Its run’s cost (GET /runs/{id} `cost`); null when a model has no known price, it did not run or its replay diverged',
          ),
        },
      },
    },
    comparison: {
      oneOf: [
        {
          type: 'object',
          properties: {
            previous_test_run_id: { type: 'string' },
            newly_failing: { type: 'array', items: { type: 'string' } },
            newly_passing: { type: 'array', items: { type: 'string' } },
            total_tokens_delta: { type: 'integer' },
            duration_ms_delta: { type: 'integer' },
            cost_delta: COST('This test run’s cost minus the previous one’s; null when either is unknown'),
            cases: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  passed: { type: 'boolean' },
                  previous_passed: { ...nullable('boolean'), description: 'Null: the case is new' },
                  tokens_delta: nullable('integer'),
                  duration_ms_delta: nullable('integer'),
                  cost_delta: COST('Null when the case is new or either cost is unknown'),
                },
              },
            },
          },
        },
        { type: 'null' },
      ],
    },
    created_at: { type: 'string' },
    finished_at: nullable('string'),
  },
});

export const CASSETTE = openApi(CASSETTE_SCHEMA);
