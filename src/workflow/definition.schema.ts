import { NODE_TYPES } from './definition.types';
import { CONDITION_OPERATORS } from './nodes/condition-operators';

const reference = { type: 'string', description: 'Text with {{inputs.x}} / {{node-id.output}} references' };

const llmData = {
  type: 'object',
  required: ['prompt'],
  additionalProperties: false,
  properties: {
    label: { type: 'string' },
    provider: {
      type: 'string',
      description: 'Configured provider name (openai, ollama, …); default LLM_DEFAULT_PROVIDER',
    },
    model: { type: 'string', description: "Model name; default the provider's default_model" },
    system: reference,
    prompt: reference,
    enable_tools: { type: 'boolean', default: false },
    tools: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, uniqueItems: true, maxItems: 128 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    max_tokens: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    max_iterations: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
    tool_choice: {
      oneOf: [
        { enum: ['auto', 'required', 'none'] },
        { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string' } } },
      ],
    },
    parallel_tool_calls: { type: 'boolean' },
    on_max_iterations: { enum: ['final_answer', 'fail'], default: 'final_answer' },
    timeout_ms: { type: 'integer', minimum: 100, maximum: 3_600_000 },
    max_tool_calls: { type: 'integer', minimum: 1, maximum: 1000 },
    max_total_tokens: { type: 'integer', minimum: 1 },
  },
};

const conditionData = {
  type: 'object',
  required: ['conditions'],
  additionalProperties: false,
  properties: {
    label: { type: 'string' },
    logic: { enum: ['and', 'or'], default: 'and' },
    conditions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['left', 'op'],
        additionalProperties: false,
        properties: {
          left: {},
          op: { enum: CONDITION_OPERATORS },
          right: {},
        },
      },
    },
  },
};

const nodeOf = (type: string, data: Record<string, unknown>) => ({
  if: { properties: { type: { const: type } }, required: ['type'] },
  then: { properties: { data } },
});

/** The published JSON Schema of a workflow definition (GET /api/v1/workflows/schema). */
export const WORKFLOW_DEFINITION_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://toolflow.dev/schemas/workflow-definition.json',
  title: 'ToolFlow workflow definition',
  type: 'object',
  required: ['name', 'nodes', 'edges'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    description: { type: 'string', maxLength: 4000 },
    inputs: {
      type: 'object',
      description: 'JSON Schema (type object) of the run inputs',
      properties: { type: { const: 'object' } },
      additionalProperties: true,
    },
    outputs: { type: 'object', description: 'Run outputs; values may reference nodes', additionalProperties: true },
    nodes: {
      type: 'array',
      minItems: 2,
      maxItems: 500,
      items: {
        type: 'object',
        required: ['id', 'type'],
        additionalProperties: true,
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' },
          type: { enum: [...NODE_TYPES] },
          data: { type: 'object' },
          position: { type: 'object', description: 'Editor position; ignored by the engine' },
        },
        allOf: [
          nodeOf('llm', llmData),
          nodeOf('condition', conditionData),
          nodeOf('template', {
            type: 'object',
            required: ['template'],
            properties: { label: { type: 'string' }, template: reference },
          }),
          nodeOf('tool', {
            type: 'object',
            required: ['tool'],
            additionalProperties: false,
            properties: {
              label: { type: 'string' },
              tool: { type: 'string', minLength: 1, maxLength: 64 },
              arguments: { type: 'object', description: 'Arguments; values may reference nodes' },
            },
          }),
          nodeOf('end', {
            type: 'object',
            properties: { label: { type: 'string' }, outputs: { type: 'object' } },
          }),
        ],
      },
    },
    edges: {
      type: 'array',
      maxItems: 2000,
      items: {
        type: 'object',
        required: ['source', 'target'],
        additionalProperties: true,
        properties: {
          id: { type: 'string' },
          source: { type: 'string' },
          target: { type: 'string' },
          condition: { enum: ['true', 'false', true, false] },
        },
      },
    },
  },
} as const;
