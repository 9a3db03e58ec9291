import { type Static, Type } from '@sinclair/typebox';
import type { FieldProblem } from '../common/errors/domain-error';
import { createAjv } from '../json-schema/create-ajv';
import { freeObject } from '../json-schema/schema-helpers';
import { maskRequest, maskResponse, type ModelExchange } from '../llm/model-exchange';
import type { ChatRequest, ChatResponse } from '../llm/provider';

export const CASSETTE_FORMAT = 'toolflow-cassette/1';

const Exchange = Type.Object(
  {
    node_id: Type.String({ minLength: 1 }),
    item: Type.Optional(
      Type.String({
        maxLength: 255,
        description: 'The map item or loop iteration the node ran in (`each[2]`); absent or empty: outside any',
      }),
    ),
    call_index: Type.Integer({ minimum: 0 }),
    provider: Type.String(),
    model: Type.String(),
    request: Type.Intersect([freeObject(), Type.Object({ model: Type.String(), messages: Type.Array(freeObject()) })]),
    response: Type.Intersect([
      freeObject(),
      Type.Object({
        content: Type.String(),
        toolCalls: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() })),
        usage: Type.Object({
          promptTokens: Type.Integer({ minimum: 0 }),
          completionTokens: Type.Integer({ minimum: 0 }),
          totalTokens: Type.Integer({ minimum: 0 }),
        }),
      }),
    ]),
    duration_ms: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/**
 * A run's model calls as a file: what a replay answers the same calls with, offline. Secrets are masked when it
 * is exported and again when it is imported (a hand-written cassette gets the same masking).
 */
export const CASSETTE_SCHEMA = Type.Object(
  {
    format: Type.Literal(CASSETTE_FORMAT),
    run_id: Type.Union([Type.String(), Type.Null()]),
    workflow_id: Type.Union([Type.String(), Type.Null()]),
    workflow_version: Type.Union([Type.Integer(), Type.Null()]),
    exchanges: Type.Array(Exchange),
  },
  { additionalProperties: false },
);
export type Cassette = Static<typeof CASSETTE_SCHEMA>;

const validateCassette = createAjv('draft-07').compile<Cassette>(CASSETTE_SCHEMA);

/** Problems of a cassette (`field` names where it sat); none means it is a Cassette. */
export function checkCassette(value: unknown, field: string): FieldProblem[] {
  if (validateCassette(value)) return [];
  return (validateCassette.errors ?? []).map((error) => {
    const path = error.instancePath.split('/').slice(1).join('.');
    return { field: path ? `${field}.${path}` : field, message: error.message ?? 'is invalid' };
  });
}

/** The cassette of a run's recorded exchanges. */
export function toCassette(
  run: { id: string; workflowId: string | null; workflowVersion: number | null },
  exchanges: readonly ModelExchange[],
): Cassette {
  return {
    format: CASSETTE_FORMAT,
    run_id: run.id,
    workflow_id: run.workflowId,
    workflow_version: run.workflowVersion,
    exchanges: exchanges.map((exchange) => ({
      node_id: exchange.nodeId,
      item: exchange.item,
      call_index: exchange.callIndex,
      provider: exchange.provider,
      model: exchange.model,
      request: maskRequest(exchange.request) as unknown as Cassette['exchanges'][number]['request'],
      response: maskResponse(exchange.response) as unknown as Cassette['exchanges'][number]['response'],
      duration_ms: Math.round(exchange.durationMs),
    })),
  };
}

/** The exchanges of a checked cassette, masked; optional answer fields an older or hand-written one lacks are empty. */
export function exchangesOf(cassette: Cassette): ModelExchange[] {
  return cassette.exchanges.map((exchange) => {
    const response = exchange.response as unknown as Partial<ChatResponse> &
      Pick<ChatResponse, 'content' | 'toolCalls' | 'usage'>;
    return {
      nodeId: exchange.node_id,
      item: exchange.item ?? '',
      callIndex: exchange.call_index,
      provider: exchange.provider,
      model: exchange.model,
      request: maskRequest(exchange.request as unknown as ChatRequest),
      response: maskResponse({
        reasoning: '',
        reasoningParts: [],
        malformedToolCalls: [],
        repairs: [],
        finishReason: null,
        ...response,
      }),
      durationMs: exchange.duration_ms ?? 0,
    };
  });
}
