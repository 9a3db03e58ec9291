import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { Problem, problemResponse } from '../common/http/api-problem-responses';
import { EXECUTOR_CATALOG } from '../executors/executors.tokens';
import type { ExecutorCatalog } from '../executors/executor-catalog';
import { RUN_EVENT_TYPES } from '../runs/run-event-types';
import type { ImplementationType } from '../shared/tool-types';
import { WORKFLOW_DEFINITION_SCHEMA } from '../workflow/definition.schema';
import { RUN_EVENT_DATA } from './run-event-schemas';
import { toOpenApi31 } from './to-openapi-31';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const pascal = (text: string) => text.replace(/(^|[._-])([a-z])/g, (_match, _sep, char: string) => char.toUpperCase());
const configSchemaName = (type: ImplementationType) => `${pascal(type)}ToolConfig`;

/** A JSON Schema the service validates with, as an OpenAPI 3.1 component (no $schema/$id of its own). */
function asComponent(schema: Schema): Schema {
  const { $schema: _schema, $id: _id, ...rest } = structuredClone(schema);
  return rest;
}

/**
 * Tool bodies as one variant per implementation type, told apart by `implementation_type`, each with the
 * config schema the executor validates; a generated client then types `implementation_config` per type.
 */
function addToolVariants(schemas: Record<string, Schema>, catalog: ExecutorCatalog): void {
  const types = catalog.describe();
  for (const entry of types) {
    schemas[configSchemaName(entry.type)] = { ...asComponent(entry.config_schema), description: entry.description };
  }
  const variantsOf = (base: string) => {
    const fields = schemas[base] as { properties: Record<string, Schema>; required?: string[] };
    const common = structuredClone(fields);
    delete common.properties.implementation_type;
    delete common.properties.implementation_config;
    common.required = (common.required ?? []).filter((name) => name !== 'implementation_type');
    schemas[`${base}Fields`] = common;
    const variants = types.map((entry) => {
      const name = `${base}${pascal(entry.type)}`;
      schemas[name] = {
        allOf: [
          ref(`${base}Fields`),
          {
            type: 'object',
            required: ['implementation_type'],
            properties: {
              implementation_type: { type: 'string', const: entry.type },
              implementation_config: ref(configSchemaName(entry.type)),
            },
          },
        ],
      };
      return { type: entry.type, name };
    });
    schemas[base] = {
      oneOf: variants.map((variant) => ref(variant.name)),
      discriminator: {
        propertyName: 'implementation_type',
        mapping: Object.fromEntries(variants.map((variant) => [variant.type, `#/components/schemas/${variant.name}`])),
      },
    };
  };
  variantsOf('CreateToolDto');
  const update = schemas.UpdateToolDto as { properties: Record<string, Schema> };
  update.properties.implementation_config = {
    description: 'The config schema of the implementation type (the stored one when the type is not sent)',
    anyOf: types.map((entry) => ref(configSchemaName(entry.type))),
  };
}

function addRunEvents(document: OpenAPIObject, schemas: Record<string, Schema>): void {
  const names = RUN_EVENT_TYPES.map((type) => {
    const name = `${pascal(type)}Event`;
    const event = RUN_EVENT_DATA[type];
    schemas[name] = {
      type: 'object',
      description: `\`event: ${type}\` — ${event.description}`,
      required: ['at'],
      properties: { ...event.properties, at: { type: 'string', format: 'date-time' } },
    };
    return name;
  });
  schemas.RunEventData = {
    description: 'The `data:` JSON of one event; the SSE `event:` field names it, `id:` is its sequence number',
    anyOf: names.map(ref),
  };
  const stream = document.paths['/api/v1/runs/{id}/events']?.get;
  if (stream) {
    stream.responses['200'] = {
      description:
        'An SSE stream (`text/event-stream`): past events, then live ones, ending after `run.finished`. ' +
        `Event names: ${RUN_EVENT_TYPES.join(', ')}. Each message has \`id:\` (send it back as Last-Event-ID to ` +
        'resume), `event:` and `data:` (JSON, see RunEventData). Comments (`: keep-alive`) keep the connection open.',
      content: { 'text/event-stream': { schema: ref('RunEventData') } },
    };
  }
}

function addWorkflowDefinition(document: OpenAPIObject, schemas: Record<string, Schema>): void {
  schemas.WorkflowDefinition = asComponent(WORKFLOW_DEFINITION_SCHEMA);
  schemas.SaveWorkflowRequest = {
    description: 'The definition itself (as in examples/*.json), or `{definition, is_public}`',
    anyOf: [
      ref('WorkflowDefinition'),
      {
        type: 'object',
        required: ['definition'],
        additionalProperties: false,
        properties: { definition: ref('WorkflowDefinition'), is_public: { type: 'boolean', default: false } },
      },
    ],
  };
  const response = schemas.WorkflowResponse as { properties: Record<string, Schema> };
  response.properties.definition = ref('WorkflowDefinition');
  for (const path of ['/api/v1/workflows', '/api/v1/workflows/{id}']) {
    for (const operation of [document.paths[path]?.post, document.paths[path]?.put]) {
      const content = (operation?.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
      if (content?.['application/json']) content['application/json'].schema = ref('SaveWorkflowRequest');
    }
  }
  const inline = document.paths['/api/v1/workflow-runs']?.post?.requestBody as
    { content: Record<string, { schema: { properties: Record<string, Schema> } }> } | undefined;
  if (inline) inline.content['application/json'].schema.properties.definition = ref('WorkflowDefinition');
}

/**
 * Answers every authenticated operation can give whatever it does: 429 from the per-key rate limit (and the run
 * queue), 503 while the database is unavailable. Both carry Retry-After.
 */
function addServiceLimitResponses(document: OpenAPIObject): void {
  const retryAfter = {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  };
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (!operation || operation.security?.length === 0) continue;
      for (const status of [429, 503]) {
        operation.responses[String(status)] ??= { ...problemResponse(status), headers: retryAfter };
      }
    }
  }
}

/** The OpenAPI document of the running app: what /api/docs serves and what `npm run openapi` writes. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setOpenAPIVersion('3.1.0')
      .setTitle('ToolFlow')
      .setDescription(
        'Tools for LLMs inside workflows. Every route but /health needs `Authorization: Bearer <API key>`. ' +
          'Errors are application/problem+json (the Problem schema) with an `errors` list naming each field ' +
          'and the `request_id` of the request.',
      )
      .setVersion('1')
      .addServer('/', 'The ToolFlow serving this document')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key' })
      .build(),
    { extraModels: [Problem] },
  );
  // 3.1 names a licence by its SPDX identifier; Nest's types predate the field.
  document.info.license = { name: 'MIT', identifier: 'MIT' } as OpenAPIObject['info']['license'];
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  addToolVariants(schemas, app.get<ExecutorCatalog>(EXECUTOR_CATALOG));
  addWorkflowDefinition(document, schemas);
  addRunEvents(document, schemas);
  addServiceLimitResponses(document);
  return toOpenApi31(document);
}
