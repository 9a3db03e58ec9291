import type { ErrorObject } from 'ajv';
import type AjvCore from 'ajv/dist/core';
import type { JsonSchema } from '../shared/tool-types';
import { createAjv } from './create-ajv';
import { closestMatch } from './edit-distance';
import { appendPointer, unescapePointerSegment } from './json-pointer';
import { compileSafePattern } from './safe-regexp';
import { detectSchemaDraft, type SchemaDraft } from './schema-draft';
import { JSON_SCHEMA_KEYWORDS, MISLEADING_ANNOTATIONS, SILENT_ANNOTATIONS } from './schema-keywords';
import { walkSchema } from './walk-schema';
import { errorMessage } from '../shared/error-text';
import { LruCache } from '../shared/lru-cache';

export interface SchemaProblem {
  /** JSON pointer of the offending keyword inside the parameters schema. */
  path: string;
  message: string;
}

export interface SchemaWarning {
  path: string;
  keyword: string;
  message: string;
  /** The keyword the author probably meant. */
  suggestion?: string;
}

export interface SchemaCheckResult {
  problems: SchemaProblem[];
  warnings: SchemaWarning[];
}

const metaValidators = new Map<SchemaDraft, AjvCore>();

const ajvFor = (draft: SchemaDraft): AjvCore => {
  let ajv = metaValidators.get(draft);
  if (!ajv) {
    ajv = createAjv(draft);
    metaValidators.set(draft, ajv);
  }
  return ajv;
};

export interface SchemaCheckOptions {
  /**
   * `warn` (default): a keyword validation would ignore is a warning. `refuse`: it is a problem, except `x-…`
   * extensions; for schemas a person writes through the API, where a misspelled `propertes` would silently
   * validate nothing.
   */
  unknownKeywords?: 'warn' | 'refuse';
}

/**
 * Checks a tool's `parameters` schema on save. Problems block saving (not a valid JSON Schema,
 * root not `type: "object"`, a pattern the linear-time regex engine cannot run, and with `refuse` a keyword
 * JSON Schema does not know); warnings name keywords that validation will ignore, with the intended keyword
 * when the name is a near miss, and formats that are not validated.
 */
export function checkParametersSchema(parameters: unknown, options: SchemaCheckOptions = {}): SchemaCheckResult {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    return { problems: [{ path: '', message: 'parameters must be a JSON Schema object' }], warnings: [] };
  }
  const schema = parameters as JsonSchema;
  const draftResult = detectSchemaDraft(schema);
  if (!draftResult.ok) return { problems: [{ path: '/$schema', message: draftResult.message }], warnings: [] };

  const ajv = ajvFor(draftResult.draft);
  const problems = [
    ...rootTypeProblems(schema),
    ...metaSchemaProblems(ajv, schema),
    ...patternProblems(schema),
    ...protoNameProblems(schema),
  ];
  if (problems.length === 0) problems.push(...compileProblems(draftResult.draft, schema));
  const warnings = keywordWarnings(schema, Object.keys(ajv.formats));
  if (options.unknownKeywords !== 'refuse') return { problems, warnings };
  return { problems: [...problems, ...unknownKeywordProblems(schema)], warnings: warnings.filter(isFormatWarning) };
}

const isFormatWarning = (warning: SchemaWarning): boolean => warning.keyword === 'format';

/** Every keyword JSON Schema does not know, `x-…` extensions aside, with the keyword meant when it is a near miss. */
function unknownKeywordProblems(schema: JsonSchema): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  walkSchema(schema, (subschema, pointer) => {
    for (const keyword of Object.keys(subschema)) {
      if (JSON_SCHEMA_KEYWORDS.includes(keyword) || keyword.startsWith('x-')) continue;
      const suggestion = closestMatch(keyword, JSON_SCHEMA_KEYWORDS);
      const hint = suggestion
        ? `did you mean "${suggestion}"?`
        : (MISLEADING_ANNOTATIONS[keyword] ?? 'JSON Schema has no such keyword (name your own annotations "x-…")');
      problems.push({
        path: appendPointer(pointer, keyword),
        message: `unknown keyword "${keyword}" would validate nothing; ${hint}`,
      });
    }
  });
  return problems;
}

function rootTypeProblems(schema: JsonSchema): SchemaProblem[] {
  if (schema.type === 'object') return [];
  return [{ path: '/type', message: 'the root of a parameters schema must have "type": "object"' }];
}

function metaSchemaProblems(ajv: AjvCore, schema: JsonSchema): SchemaProblem[] {
  if (ajv.validateSchema(schema)) return [];
  const firstPerPath = new Map<string, ErrorObject>();
  for (const error of ajv.errors ?? []) {
    if (!firstPerPath.has(error.instancePath)) firstPerPath.set(error.instancePath, error);
  }
  return [...firstPerPath.entries()].map(([path, error]) => ({ path, message: describeMetaError(path, error) }));
}

function describeMetaError(path: string, error: ErrorObject): string {
  const keyword = path.split('/').pop() ?? '';
  const subject = keyword ? `"${unescapePointerSegment(keyword)}" ` : 'schema ';
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const suffix = Array.isArray(allowed) ? `: ${allowed.map((value) => JSON.stringify(value)).join(', ')}` : '';
  return `${subject}${error.message ?? 'is invalid'}${suffix}`;
}

function patternProblems(schema: JsonSchema): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  walkSchema(schema, (subschema, pointer) => {
    if (typeof subschema.pattern === 'string') {
      const result = compileSafePattern(subschema.pattern);
      if (!result.ok) problems.push({ path: appendPointer(pointer, 'pattern'), message: result.message });
    }
    const patternProperties = subschema.patternProperties;
    if (typeof patternProperties === 'object' && patternProperties !== null) {
      for (const pattern of Object.keys(patternProperties)) {
        const result = compileSafePattern(pattern);
        if (!result.ok) {
          problems.push({
            path: appendPointer(appendPointer(pointer, 'patternProperties'), pattern),
            message: result.message,
          });
        }
      }
    }
  });
  return problems;
}

/** Ajv skips a property named `__proto__`, so its value would never be checked: refused rather than ignored. */
function protoNameProblems(schema: JsonSchema): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  walkSchema(schema, (subschema, pointer) => {
    const properties = subschema.properties;
    if (typeof properties === 'object' && properties !== null && Object.hasOwn(properties, '__proto__')) {
      problems.push({
        path: appendPointer(appendPointer(pointer, 'properties'), '__proto__'),
        message:
          'a parameter may not be named "__proto__": JSON Schema validators skip that name, so its value would never be checked',
      });
    }
  });
  return problems;
}

/**
 * Ajv keeps every validator it compiled in its code-generation scope, `removeSchema` or not, so one long-lived
 * instance grows with each distinct schema checked (an inline run checks its inputs schema on every run). The
 * compile check therefore uses an instance that is replaced after this many compiles, and remembers verdicts.
 */
const COMPILES_PER_INSTANCE = 200;
const compilers = new Map<SchemaDraft, { ajv: AjvCore; compiles: number }>();
const compileVerdicts = new LruCache<string, SchemaProblem[]>(500);

const compilerFor = (draft: SchemaDraft): AjvCore => {
  let compiler = compilers.get(draft);
  if (!compiler || compiler.compiles >= COMPILES_PER_INSTANCE) {
    compiler = { ajv: createAjv(draft), compiles: 0 };
    compilers.set(draft, compiler);
  }
  compiler.compiles += 1;
  return compiler.ajv;
};

/** Catches what meta-validation cannot see, such as a `$ref` that resolves nowhere. */
function compileProblems(draft: SchemaDraft, schema: JsonSchema): SchemaProblem[] {
  const key = `${draft}\u0000${JSON.stringify(schema)}`;
  const known = compileVerdicts.get(key);
  if (known) return known;
  const ajv = compilerFor(draft);
  let problems: SchemaProblem[] = [];
  try {
    ajv.compile(schema);
  } catch (error) {
    problems = [{ path: '', message: errorMessage(error) }];
  } finally {
    ajv.removeSchema(schema);
  }
  compileVerdicts.set(key, problems);
  return problems;
}

function keywordWarnings(schema: JsonSchema, knownFormats: readonly string[]): SchemaWarning[] {
  const warnings: SchemaWarning[] = [];
  walkSchema(schema, (subschema, pointer) => {
    for (const keyword of Object.keys(subschema)) {
      const warning = keywordWarning(keyword, appendPointer(pointer, keyword));
      if (warning) warnings.push(warning);
    }
    const format = subschema.format;
    if (typeof format === 'string' && !knownFormats.includes(format)) {
      warnings.push({
        path: appendPointer(pointer, 'format'),
        keyword: 'format',
        message: `format ${JSON.stringify(format)} is not validated (known formats: ${knownFormats.join(', ')}); describe it in "description" or use "pattern"`,
        suggestion: closestMatch(format, knownFormats),
      });
    }
  });
  return warnings;
}

function keywordWarning(keyword: string, path: string): SchemaWarning | undefined {
  if (JSON_SCHEMA_KEYWORDS.includes(keyword) || SILENT_ANNOTATIONS.includes(keyword) || keyword.startsWith('x-')) {
    return undefined;
  }
  const misleading = MISLEADING_ANNOTATIONS[keyword];
  if (misleading)
    return { path, keyword, message: `"${keyword}" is not a JSON Schema keyword and has no effect: ${misleading}` };
  const suggestion = closestMatch(keyword, JSON_SCHEMA_KEYWORDS);
  if (suggestion) {
    return {
      path,
      keyword,
      suggestion,
      message: `unknown keyword "${keyword}" is ignored, so nothing is validated by it; did you mean "${suggestion}"?`,
    };
  }
  return { path, keyword, message: `unknown keyword "${keyword}" is ignored by validation` };
}
