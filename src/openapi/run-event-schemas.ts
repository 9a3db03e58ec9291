import type { RunEventType } from '../runs/run-event-types';
import { TOOL_CALL_REPAIR_KINDS } from '../shared/tool-types';

type Schema = Record<string, unknown>;

const REPAIR_DOC = 'docs/providers.md, Repaired calls';
const callRepair = {
  type: 'object',
  description: `Present when the call was repaired from a weak model's answer (${REPAIR_DOC})`,
  properties: { kind: { type: 'string', enum: [...TOOL_CALL_REPAIR_KINDS] } },
};
const modelCallRepair = {
  type: 'object',
  description:
    `Present when calls of this answer were repaired (${REPAIR_DOC}): \`kind\` of the first, \`call_ids\` of all; ` +
    '`text`, when they were read from the text, is what is left of it: it replaces the llm.delta text streamed',
  properties: {
    kind: { type: 'string', enum: [...TOOL_CALL_REPAIR_KINDS] },
    call_ids: { type: 'array', items: { type: 'string' } },
    text: { type: 'string' },
  },
};

const nodeId = { type: 'string', description: 'The node this event is about', example: 'llm-1' };
const callId = { type: 'string', description: 'The tool call id', example: 'call_1' };
const usage = {
  type: ['object', 'null'],
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
    model_calls: { type: 'integer' },
  },
};

/** The `data:` JSON of each event name on GET /runs/{id}/events; every one also carries `at` (ISO time). */
export const RUN_EVENT_DATA: Record<RunEventType, { description: string; properties: Record<string, Schema> }> = {
  'run.started': {
    description: 'The run left the queue',
    properties: {
      run_id: { type: 'string' },
      workflow_id: { type: ['string', 'null'] },
      inputs: { type: 'object', additionalProperties: true },
      depth: { type: 'integer' },
    },
  },
  'node.started': {
    description: 'A node began',
    properties: { node_id: nodeId, node_type: { type: 'string' }, label: { type: ['string', 'null'] } },
  },
  'llm.delta': {
    description: 'Answer text as the model streams it',
    properties: { node_id: nodeId, delta: { type: 'string' } },
  },
  'llm.reasoning': {
    description: 'Reasoning text, when the model streams it',
    properties: { node_id: nodeId, delta: { type: 'string' } },
  },
  'llm.retry': {
    description: 'A model request failed and is retried',
    properties: {
      node_id: nodeId,
      attempt: { type: 'integer' },
      delay_ms: { type: 'integer' },
      reason: { type: 'string' },
    },
  },
  'llm.context_trimmed': {
    description:
      'A request was trimmed to fit the model’s context window before model call `iteration`: older tool ' +
      'results shortened first, then the oldest turns left out (the stored conversation stays whole)',
    properties: {
      node_id: nodeId,
      iteration: { type: 'integer', description: 'The model call this request is for, numbered from 1' },
      context_window: { type: 'integer', example: 128000 },
      reserved_tokens: { type: 'integer', description: 'Kept free for the answer (max_tokens)', example: 4096 },
      tokens_before: { type: 'integer', example: 140210 },
      tokens_after: { type: 'integer', example: 121877 },
      shortened_results: { type: 'integer', description: 'Older tool results replaced by their short form' },
      dropped_messages: { type: 'integer', description: 'Messages left out, oldest turns first' },
    },
  },
  'llm.embeddings_failed': {
    description:
      'Tool selection could not use embeddings (`stage` tools: embedding the tools before the first call; query: ' +
      'embedding a query) and ranks lexically for the rest of the node',
    properties: {
      node_id: nodeId,
      stage: { type: 'string', enum: ['tools', 'query'] },
      provider: { type: 'string', example: 'openai' },
      model: { type: 'string', example: 'text-embedding-3-small' },
      message: { type: 'string', example: 'embeddings 404: model not found' },
    },
  },
  'llm.call': {
    description: 'A model call of an LLM node ended; `offered_tools` names the tools it was offered',
    properties: {
      node_id: nodeId,
      iteration: { type: 'integer', description: 'Numbers the model calls of the node from 1' },
      offered_tools: { type: 'array', items: { type: 'string' }, example: ['get_weather', 'search_tools'] },
      prompt_tokens: { type: 'integer' },
      completion_tokens: { type: 'integer' },
      repair: modelCallRepair,
    },
  },
  'tool.call': {
    description: 'The model (or a tool node) called a tool',
    properties: {
      node_id: nodeId,
      call_id: callId,
      name: { type: 'string' },
      index: { type: 'integer' },
      repair: callRepair,
    },
  },
  'tool.args.delta': {
    description: 'Arguments of a tool call as the model streams them',
    properties: { node_id: nodeId, call_id: callId, name: { type: 'string' }, delta: { type: 'string' } },
  },
  'llm.usage': {
    description:
      'A model call ended (before its tool calls run): that call’s tokens and cost; `iteration` numbers the calls from 1',
    properties: {
      node_id: nodeId,
      iteration: { type: 'integer', example: 1 },
      usage: {
        type: 'object',
        properties: {
          prompt_tokens: { type: 'integer' },
          completion_tokens: { type: 'integer' },
          total_tokens: { type: 'integer' },
          cached_prompt_tokens: { type: 'integer', description: 'Of prompt_tokens, read from the provider cache' },
          reasoning_tokens: { type: 'integer', description: 'Of completion_tokens, reasoning' },
        },
      },
      cost: {
        type: ['object', 'null'],
        description: 'What the call cost; null when its model has no known price (GET /providers)',
        properties: { amount: { type: 'number', example: 0.00125 }, currency: { type: 'string', example: 'USD' } },
      },
      repair: modelCallRepair,
    },
  },
  'llm.output_retry': {
    description:
      'A final answer did not match the node’s output_schema (or was not JSON) and was sent back to the model ' +
      'with these errors; `attempt` numbers the answers sent back from 1 (at most output_retries)',
    properties: {
      node_id: nodeId,
      attempt: { type: 'integer', example: 1 },
      errors: {
        type: 'array',
        items: { type: 'string' },
        example: ['/city: is required but missing (rule: required); received nothing; expected string'],
      },
    },
  },
  'tool.result': {
    description: 'A tool call ended; `response` is the start of what the model was told',
    properties: {
      node_id: nodeId,
      call_id: callId,
      name: { type: 'string' },
      status: { type: 'string' },
      duration_ms: { type: 'integer' },
      response: { type: 'string' },
      repaired: {
        type: 'boolean',
        description: 'Present (true) when the arguments were broken JSON, repaired before the call',
      },
      repair: callRepair,
    },
  },
  'node.item': {
    description: 'An item of a map node, or an iteration of a loop node, ended (one with no event ran before a resume)',
    properties: {
      node_id: nodeId,
      index: { type: 'integer', description: 'The item’s index in the array, or the iteration’s (from 0)' },
      status: { type: 'string', enum: ['succeeded', 'failed'] },
      duration_ms: { type: 'integer' },
      usage,
      error: { type: 'string', description: 'Present when it failed' },
    },
  },
  'approval.requested': {
    description: 'A tool call waits for a person’s decision (POST /runs/{id}/approvals/{approval_id}); the run waits',
    properties: {
      approval_id: { type: 'string' },
      node_id: nodeId,
      call_id: callId,
      tool: { type: 'string' },
      arguments: { type: 'object', additionalProperties: true, description: 'Credentials masked' },
    },
  },
  'approval.resolved': {
    description: 'A person approved or rejected a waiting tool call',
    properties: {
      approval_id: { type: 'string' },
      node_id: nodeId,
      call_id: callId,
      tool: { type: 'string' },
      decision: { type: 'string', enum: ['approve', 'reject'] },
      arguments: {
        type: 'object',
        additionalProperties: true,
        description: 'Present when the approval replaced the model’s arguments; credentials masked',
      },
      comment: { type: ['string', 'null'] },
      decided_by: { type: 'string' },
      decided_key_name: { type: ['string', 'null'], description: 'The name of the API key that decided' },
    },
  },
  'node.finished': {
    description: 'A node ended; `output` (a summary) on success, `error` otherwise',
    properties: {
      node_id: nodeId,
      status: { type: 'string', enum: ['succeeded', 'failed', 'cancelled'] },
      duration_ms: { type: 'integer' },
      output: {},
      error: { type: 'string' },
    },
  },
  'run.finished': {
    description: 'The run ended; the stream closes after this event',
    properties: {
      run_id: { type: 'string' },
      status: { type: 'string', enum: ['succeeded', 'failed', 'cancelled'] },
      outputs: { type: ['object', 'null'], additionalProperties: true },
      error: { type: ['string', 'null'] },
      usage,
    },
  },
};
