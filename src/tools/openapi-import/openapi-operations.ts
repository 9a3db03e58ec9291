import { isRecord } from '../../shared/is-record';
import type { OpenApiDialect } from './convert-schema';

export const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  deprecated: boolean;
  schema: unknown;
  style?: string;
  explode?: boolean;
}

export type OperationBody =
  { kind: 'json'; schema: unknown; required: boolean; description?: string } | { kind: 'unsupported'; reason: string };

export interface SecurityScheme {
  name: string;
  /** http bearer, oauth2 and openIdConnect all send a bearer token. */
  kind: 'bearer' | 'basic' | 'api_key_header' | 'api_key_query' | 'api_key_cookie' | 'other';
  /** The header or query parameter name of an API key. */
  parameter?: string;
}

/** One operation of a dereferenced OpenAPI 2.0/3.x document in one shape. */
export interface ImportOperation {
  /** How `operations` and `skipped` name it: the operationId, else "METHOD /path". */
  key: string;
  operationId?: string;
  method: string;
  path: string;
  summary?: string;
  description?: string;
  deprecated: boolean;
  parameters: OperationParameter[];
  body?: OperationBody;
  /** Alternatives; each lists the schemes it needs together. Empty: no auth. */
  security: SecurityScheme[][];
  /** The server URL as written (may be relative or hold variables already filled with defaults). */
  serverUrl?: string;
  callbacks: string[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined);
const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);

export const dialectOf = (document: Record<string, unknown>): OpenApiDialect => {
  if (typeof document.swagger === 'string') return '2.0';
  return typeof document.openapi === 'string' && document.openapi.startsWith('3.0') ? '3.0' : '3.1';
};

const isJsonMediaType = (type: string): boolean => /^application\/([\w.-]+\+)?json(;|$)/i.test(type.trim());

/** Every operation in document order, plus the document's webhooks (which are not operations to call). */
export const listOperations = (
  document: Record<string, unknown>,
): { operations: ImportOperation[]; webhooks: string[] } => {
  const dialect = dialectOf(document);
  const schemes = securitySchemes(document, dialect);
  const operations: ImportOperation[] = [];
  for (const [path, item] of Object.entries(isRecord(document.paths) ? document.paths : {})) {
    if (!isRecord(item)) continue;
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (!isRecord(operation)) continue;
      operations.push(toOperation(document, dialect, schemes, path, item, method, operation));
    }
  }
  const webhooks = Object.keys(isRecord(document.webhooks) ? document.webhooks : {});
  return { operations, webhooks };
};

const toOperation = (
  document: Record<string, unknown>,
  dialect: OpenApiDialect,
  schemes: Map<string, SecurityScheme>,
  path: string,
  item: Record<string, unknown>,
  method: string,
  operation: Record<string, unknown>,
): ImportOperation => {
  const operationId = text(operation.operationId);
  const merged = new Map<string, Record<string, unknown>>();
  for (const parameter of [...records(item.parameters), ...records(operation.parameters)]) {
    merged.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
  }
  const raw = [...merged.values()];
  const security = (Array.isArray(operation.security) ? operation.security : document.security) ?? [];
  return {
    key: operationId ?? `${method.toUpperCase()} ${path}`,
    operationId,
    method,
    path,
    summary: text(operation.summary),
    description: text(operation.description),
    deprecated: operation.deprecated === true,
    parameters: raw
      .filter((parameter) => ['path', 'query', 'header', 'cookie'].includes(String(parameter.in)))
      .map((parameter) => toParameter(parameter, dialect)),
    body: dialect === '2.0' ? swaggerBody(document, operation, raw) : openApiBody(operation.requestBody),
    security: records(security).map((requirement) =>
      Object.keys(requirement).map((name) => schemes.get(name) ?? { name, kind: 'other' }),
    ),
    serverUrl: dialect === '2.0' ? swaggerServer(document) : openApiServer(document, item, operation),
    callbacks: Object.keys(isRecord(operation.callbacks) ? operation.callbacks : {}),
  };
};

const SWAGGER_PARAMETER_FIELDS = new Set([
  'name',
  'in',
  'required',
  'description',
  'collectionFormat',
  'allowEmptyValue',
]);
const COLLECTION_FORMATS: Record<string, { style: string; explode: boolean }> = {
  csv: { style: 'form', explode: false },
  ssv: { style: 'spaceDelimited', explode: false },
  pipes: { style: 'pipeDelimited', explode: false },
  multi: { style: 'form', explode: true },
};

const toParameter = (parameter: Record<string, unknown>, dialect: OpenApiDialect): OperationParameter => {
  const location = String(parameter.in) as OperationParameter['in'];
  const common = {
    name: String(parameter.name),
    in: location,
    required: location === 'path' || parameter.required === true,
    description: text(parameter.description),
    deprecated: parameter.deprecated === true,
  };
  if (dialect === '2.0') {
    // A 2.0 parameter carries its schema keywords inline.
    const schema = Object.fromEntries(Object.entries(parameter).filter(([key]) => !SWAGGER_PARAMETER_FIELDS.has(key)));
    const format =
      COLLECTION_FORMATS[typeof parameter.collectionFormat === 'string' ? parameter.collectionFormat : 'csv'] ??
      COLLECTION_FORMATS.csv;
    return { ...common, schema, ...(schema.type === 'array' ? format : {}) };
  }
  const content = isRecord(parameter.content) ? Object.values(parameter.content).find(isRecord) : undefined;
  return {
    ...common,
    schema: parameter.schema ?? content?.schema ?? {},
    style: text(parameter.style),
    explode: typeof parameter.explode === 'boolean' ? parameter.explode : undefined,
  };
};

const openApiBody = (requestBody: unknown): OperationBody | undefined => {
  if (!isRecord(requestBody) || !isRecord(requestBody.content)) return undefined;
  const types = Object.keys(requestBody.content);
  const json = types.find(isJsonMediaType);
  if (json === undefined) {
    return {
      kind: 'unsupported',
      reason: `its request body is ${types.join(', ')}; only JSON bodies can be sent by an http tool`,
    };
  }
  const media = requestBody.content[json];
  return {
    kind: 'json',
    schema: isRecord(media) ? (media.schema ?? {}) : {},
    required: requestBody.required === true,
    description: text(requestBody.description),
  };
};

const swaggerBody = (
  document: Record<string, unknown>,
  operation: Record<string, unknown>,
  parameters: Record<string, unknown>[],
): OperationBody | undefined => {
  if (parameters.some((parameter) => parameter.in === 'formData')) {
    return { kind: 'unsupported', reason: 'it takes form data (formData parameters); only JSON bodies can be sent' };
  }
  const body = parameters.find((parameter) => parameter.in === 'body');
  if (!body) return undefined;
  const consumes = Array.isArray(operation.consumes) ? operation.consumes : document.consumes;
  const types = Array.isArray(consumes) ? consumes.map(String) : [];
  if (types.length > 0 && !types.some(isJsonMediaType)) {
    return { kind: 'unsupported', reason: `it consumes ${types.join(', ')}; only JSON bodies can be sent` };
  }
  return {
    kind: 'json',
    schema: body.schema ?? {},
    required: body.required === true,
    description: text(body.description),
  };
};

const swaggerServer = (document: Record<string, unknown>): string | undefined => {
  const basePath = typeof document.basePath === 'string' ? document.basePath : '';
  if (typeof document.host !== 'string') return basePath || undefined;
  const schemes = Array.isArray(document.schemes) ? document.schemes.map(String) : [];
  const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
  return `${scheme}://${document.host}${basePath}`;
};

const openApiServer = (
  document: Record<string, unknown>,
  item: Record<string, unknown>,
  operation: Record<string, unknown>,
): string | undefined => {
  const server = [operation.servers, item.servers, document.servers].map(records).find((list) => list.length > 0)?.[0];
  if (!server || typeof server.url !== 'string') return undefined;
  const variables = isRecord(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^}]+)\}/g, (match, name: string) => {
    const variable = variables[name];
    return isRecord(variable) && typeof variable.default === 'string' ? variable.default : match;
  });
};

const securitySchemes = (document: Record<string, unknown>, dialect: OpenApiDialect): Map<string, SecurityScheme> => {
  const source =
    dialect === '2.0'
      ? document.securityDefinitions
      : isRecord(document.components)
        ? document.components.securitySchemes
        : undefined;
  const schemes = new Map<string, SecurityScheme>();
  for (const [name, scheme] of Object.entries(isRecord(source) ? source : {})) {
    if (isRecord(scheme)) schemes.set(name, toScheme(name, scheme));
  }
  return schemes;
};

const toScheme = (name: string, scheme: Record<string, unknown>): SecurityScheme => {
  const type = String(scheme.type);
  const httpScheme = typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : '';
  if (type === 'basic' || (type === 'http' && httpScheme === 'basic')) return { name, kind: 'basic' };
  if ((type === 'http' && httpScheme === 'bearer') || type === 'oauth2' || type === 'openIdConnect') {
    return { name, kind: 'bearer' };
  }
  if (type === 'apiKey') {
    const parameter = String(scheme.name);
    if (scheme.in === 'header') return { name, kind: 'api_key_header', parameter };
    if (scheme.in === 'query') return { name, kind: 'api_key_query', parameter };
    if (scheme.in === 'cookie') return { name, kind: 'api_key_cookie', parameter };
  }
  return { name, kind: 'other' };
};
