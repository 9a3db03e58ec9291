import type { CreateToolDto } from '../tool.dto';
import { isRecord } from '../../shared/is-record';
import { ELLIPSIS, truncate } from '../../shared/truncate';
import type { JsonSchema, ToolEffect } from '../../shared/tool-types';
import { HTTP_METHODS, type HttpAuthConfig, type HttpToolConfig } from '../../executors/http/http-tool-config';
import { QUERY_STYLES, type QuerySerialization } from '../../executors/http/serialize-query';
import { type ConversionNotes, convertSchema, type OpenApiDialect, UnsupportedSchemaError } from './convert-schema';
import type { ImportOperation, OperationParameter, SecurityScheme } from './openapi-operations';

/** One tool's `parameters` stays under this size; deeper parts become open schemas. */
export const MAX_PARAMETERS_BYTES = 64 * 1024;
const DEPTH_STEPS = [8, 6, 4, 3, 2, 1, 0];
const MAX_DESCRIPTION = 4000;
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

export interface OperationToolOptions {
  name: string;
  dialect: OpenApiDialect;
  category: string;
  /** Absolute server URL (base_url or the document's); undefined when there is none. */
  baseUrl?: string;
  auth?: HttpAuthConfig;
}

export type OperationTool = { ok: true; tool: CreateToolDto } | { ok: false; reason: string };

const EFFECTS: Record<string, ToolEffect> = {
  GET: 'read_only',
  HEAD: 'read_only',
  PUT: 'idempotent',
  DELETE: 'idempotent',
  POST: 'mutating',
  PATCH: 'mutating',
};

/** A property name that can be a `{placeholder}` of the http config. */
const placeholderName = (name: string, taken: Set<string>): string => {
  let base = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
  let candidate = base;
  for (let counter = 2; taken.has(candidate); counter++) candidate = `${base}_${counter}`;
  taken.add(candidate);
  return candidate;
};

class Skip extends Error {}

/** An `http` tool that calls one OpenAPI operation, or why it cannot. */
export const operationToTool = (operation: ImportOperation, options: OperationToolOptions): OperationTool => {
  try {
    return { ok: true, tool: build(operation, options) };
  } catch (error) {
    if (error instanceof Skip) return { ok: false, reason: error.message };
    if (error instanceof UnsupportedSchemaError) return { ok: false, reason: `it takes ${error.message}` };
    throw error;
  }
};

const build = (operation: ImportOperation, options: OperationToolOptions): CreateToolDto => {
  const method = operation.method.toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new Skip(`method ${method} is not supported by http tools`);
  }
  if (operation.body?.kind === 'unsupported') throw new Skip(operation.body.reason);
  if (!options.baseUrl) throw new Skip('the document has no absolute http(s) server URL for it; pass base_url');
  const auth = chooseAuth(operation.security, options.auth);

  for (let step = -1; step < DEPTH_STEPS.length; step++) {
    const notes: ConversionNotes = new Set();
    const maxDepth = step < 0 ? undefined : DEPTH_STEPS[step];
    const shaped = shape(operation, options, { dialect: options.dialect, notes, maxDepth });
    if (JSON.stringify(shaped.parameters).length > MAX_PARAMETERS_BYTES) continue;
    const description = truncate(describe(operation, notes), MAX_DESCRIPTION, ELLIPSIS);
    const config: HttpToolConfig = {
      url: `${options.baseUrl.replace(/\/+$/, '')}${shaped.path}`,
      method: method as HttpToolConfig['method'],
      ...(Object.keys(shaped.query).length > 0 ? { query: shaped.query } : {}),
      ...(Object.keys(shaped.serialization).length > 0 ? { query_serialization: shaped.serialization } : {}),
      ...(Object.keys(shaped.headers).length > 0 ? { headers: shaped.headers } : {}),
      ...(shaped.body !== undefined ? { body: shaped.body } : {}),
      ...(auth ? { auth } : {}),
    };
    return {
      name: options.name,
      description,
      category: options.category,
      function_schema: {
        type: 'function',
        function: { name: options.name, description, parameters: shaped.parameters },
      },
      implementation_type: 'http',
      implementation_config: config,
      effect: EFFECTS[method],
    };
  }
  throw new Skip(`its parameters stay over ${MAX_PARAMETERS_BYTES / 1024} KB even with nested parts left open`);
};

const describe = (operation: ImportOperation, notes: ConversionNotes): string => {
  const parts = [operation.summary, operation.description].filter((part): part is string => !!part);
  if (parts.length === 2 && parts[1].startsWith(parts[0])) parts.shift();
  const text = parts.length > 0 ? parts.join('\n\n') : `${operation.method.toUpperCase()} ${operation.path}`;
  const noted = notes.size > 0 ? `${text}\n\nNote: ${[...notes].join(' ')}` : text;
  return operation.deprecated ? `Deprecated. ${noted}` : noted;
};

interface Shaped {
  parameters: JsonSchema;
  path: string;
  query: Record<string, string>;
  serialization: Record<string, QuerySerialization>;
  headers: Record<string, string>;
  body?: unknown;
}

const shape = (
  operation: ImportOperation,
  options: OperationToolOptions,
  convert: Parameters<typeof convertSchema>[1],
): Shaped => {
  const taken = new Set<string>();
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const shaped: Shaped = { parameters: {}, path: operation.path, query: {}, serialization: {}, headers: {} };
  const pathNames = new Map<string, string>();

  for (const parameter of operation.parameters) {
    if (parameter.in === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue;
    if (parameter.in === 'cookie') {
      if (parameter.required) throw new Skip(`it needs the cookie parameter "${parameter.name}"; cookies are not sent`);
      continue;
    }
    const property = placeholderName(parameter.name, taken);
    const schema = parameterSchema(parameter, property, convert);
    properties[property] = schema;
    if (parameter.required) required.push(property);
    const placeholder = `{${property}}`;
    if (parameter.in === 'path') pathNames.set(parameter.name, property);
    else if (parameter.in === 'header') shaped.headers[parameter.name] = placeholder;
    else {
      shaped.query[parameter.name] = placeholder;
      const serialization = querySerialization(parameter, schema);
      if (serialization) shaped.serialization[parameter.name] = serialization;
    }
  }

  shaped.path = operation.path.replace(/\{([^}]*)\}/g, (_match, name: string) => {
    const property = pathNames.get(name);
    if (!property) throw new Skip(`its path names {${name}}, which is not a declared path parameter`);
    return `{${property}}`;
  });

  if (operation.body?.kind === 'json') {
    const body = operation.body;
    const schema = flattenAllOf(convertSchema(body.schema, convert));
    const object = isRecord(schema) && isPlainObject(schema) ? schema : undefined;
    const bodyProperties = object?.properties as Record<string, unknown> | undefined;
    const clashes = bodyProperties && Object.keys(bodyProperties).some((name) => taken.has(placeholderKey(name)));
    if (object && bodyProperties && !clashes) {
      const template: Record<string, string> = {};
      const bodyRequired = new Set(Array.isArray(object.required) ? (object.required as string[]) : []);
      for (const [name, propertySchema] of Object.entries(bodyProperties)) {
        const property = placeholderName(name, taken);
        properties[property] = propertySchema;
        template[name] = `{${property}}`;
        if (body.required && bodyRequired.has(name)) required.push(property);
      }
      shaped.body = template;
    } else {
      const property = placeholderName('body', taken);
      properties[property] =
        body.description && isRecord(schema) && !schema.description
          ? { ...schema, description: body.description }
          : schema;
      if (body.required) required.push(property);
      shaped.body = `{${property}}`;
    }
  }

  shaped.parameters = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  return shaped;
};

/** The placeholder a name would get if free: body properties that would be renamed count as clashes. */
const placeholderKey = (name: string): string => {
  const base = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(base) ? base : `_${base}`;
};

const parameterSchema = (
  parameter: OperationParameter,
  property: string,
  convert: Parameters<typeof convertSchema>[1],
): unknown => {
  const converted = convertSchema(parameter.schema, convert);
  const schema: JsonSchema = isRecord(converted) ? { ...converted } : {};
  const where = property === parameter.name ? '' : `${parameter.in} parameter "${parameter.name}"`;
  const description = [
    where,
    parameter.description ?? (typeof schema.description === 'string' ? schema.description : ''),
  ]
    .filter(Boolean)
    .join(': ');
  if (description) schema.description = description;
  if (parameter.deprecated) schema.deprecated = true;
  return schema;
};

const typeIncludes = (schema: unknown, type: string): boolean =>
  isRecord(schema) && (schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type)));

const querySerialization = (parameter: OperationParameter, schema: unknown): QuerySerialization | undefined => {
  if (!typeIncludes(schema, 'array') && !typeIncludes(schema, 'object')) return undefined;
  const style = parameter.style ?? 'form';
  if (!(QUERY_STYLES as readonly string[]).includes(style)) {
    throw new Skip(`its query parameter "${parameter.name}" uses style "${style}", which is not supported`);
  }
  return { style: style as QuerySerialization['style'], explode: parameter.explode ?? style === 'form' };
};

const isPlainObject = (schema: Record<string, unknown>): boolean =>
  (schema.type === 'object' || (schema.type === undefined && isRecord(schema.properties))) &&
  isRecord(schema.properties) &&
  Object.keys(schema.properties).length > 0 &&
  (schema.additionalProperties === undefined || schema.additionalProperties === false) &&
  !['allOf', 'anyOf', 'oneOf', 'not', 'if', 'patternProperties'].some((keyword) => keyword in schema);

/** An `allOf` of plain objects (how 2.0 and 3.0 documents extend a model) as one object. */
const flattenAllOf = (schema: unknown): unknown => {
  if (!isRecord(schema) || !Array.isArray(schema.allOf)) return schema;
  const parts = schema.allOf.map(flattenAllOf);
  const { allOf: _parts, ...rest } = schema;
  const own = { ...rest, type: 'object' };
  if (
    !parts.every(
      (part) => isRecord(part) && (part.type === 'object' || isRecord(part.properties)) && !('allOf' in part),
    )
  ) {
    return schema;
  }
  const members = parts as Record<string, unknown>[];
  const properties = Object.assign(
    {},
    ...members.map((part) => part.properties ?? {}),
    rest.properties ?? {},
  ) as Record<string, unknown>;
  const required = [
    ...new Set([...members, rest].flatMap((part) => (Array.isArray(part.required) ? (part.required as string[]) : []))),
  ];
  return { ...own, properties, ...(required.length > 0 ? { required } : {}) };
};

const describeScheme = (scheme: SecurityScheme): string =>
  scheme.kind === 'api_key_cookie' ? `${scheme.name} (API key in a cookie)` : `${scheme.name} (${scheme.kind})`;

/** The auth an operation's security alternatives accept from the given values; undefined when none is needed. */
const chooseAuth = (alternatives: SecurityScheme[][], auth: HttpAuthConfig | undefined): HttpAuthConfig | undefined => {
  if (alternatives.length === 0) return undefined;
  const single = alternatives.filter((alternative) => alternative.length === 1).map(([scheme]) => scheme);
  const optional = alternatives.some((alternative) => alternative.length === 0);
  if (!auth || auth.type === 'none') {
    if (!optional && single.length > 0 && single.every((scheme) => scheme.kind === 'api_key_cookie')) {
      throw new Skip(`it requires ${single.map(describeScheme).join(' or ')}; cookie auth is not supported`);
    }
    return undefined;
  }
  const match = single.find((scheme) => scheme.kind === auth.type);
  if (match?.kind === 'api_key_header') return { ...auth, header_name: auth.header_name ?? match.parameter };
  if (match?.kind === 'api_key_query') return { ...auth, query_name: auth.query_name ?? match.parameter };
  if (match) return auth;
  if (optional) return undefined;
  const needed = alternatives.map((alternative) => alternative.map(describeScheme).join(' + ')).join(' or ');
  throw new Skip(`it requires ${needed}, which the given auth (${auth.type}) does not satisfy`);
};
