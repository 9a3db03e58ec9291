import type { ValidateFunction } from 'ajv';
import type AjvCore from 'ajv/dist/core';
import type { JsonSchema } from '../shared/tool-types';
import type { ArgumentError } from '../shared/argument-error';
import { createAjv } from './create-ajv';
import { LruCache } from '../shared/lru-cache';
import { ParametersSchemaError } from './parameters-schema-error';
import { detectSchemaDraft, type SchemaDraft } from './schema-draft';
import { toArgumentErrors } from './to-argument-errors';
import { errorMessage } from '../shared/error-text';

export type ArgumentValidationResult = { ok: true } | { ok: false; errors: ArgumentError[] };

export interface ArgumentValidatorOptions {
  /** Compiled validators kept in memory; least recently used are dropped first. */
  cacheSize?: number;
}

type CompiledEntry =
  { ok: true; validate: ValidateFunction; ajv: AjvCore; schema: JsonSchema } | { ok: false; reason: string };

/**
 * Validates tool arguments against the tool's `parameters` schema with ajv (draft 2020-12 or
 * draft-07 by `$schema`). Compiled validators are cached per tool key (`id@version`), so a
 * changed schema must come with a new key; patterns run on a linear-time engine.
 */
export class ArgumentValidator {
  private readonly ajvByDraft = new Map<SchemaDraft, AjvCore>();
  private readonly cache: LruCache<string, CompiledEntry>;
  private compiles = 0;

  constructor(options: ArgumentValidatorOptions = {}) {
    this.cache = new LruCache(options.cacheSize ?? 500, (_key, entry) => {
      if (entry.ok) entry.ajv.removeSchema(entry.schema);
    });
  }

  /** How many schemas were compiled so far (cache misses). */
  get compileCount(): number {
    return this.compiles;
  }

  get cachedCount(): number {
    return this.cache.size;
  }

  /** @throws ParametersSchemaError when the schema itself cannot be compiled. */
  validate(toolKey: string, schema: JsonSchema, value: unknown): ArgumentValidationResult {
    const entry = this.compiled(toolKey, schema);
    if (!entry.ok) throw new ParametersSchemaError(toolKey, entry.reason);
    if (entry.validate(value)) return { ok: true };
    return { ok: false, errors: toArgumentErrors(entry.validate.errors ?? []) };
  }

  clear(): void {
    this.cache.clear();
  }

  private compiled(toolKey: string, schema: JsonSchema): CompiledEntry {
    const cached = this.cache.get(toolKey);
    if (cached) return cached;
    this.compiles++;
    const entry = this.compile(schema);
    this.cache.set(toolKey, entry);
    return entry;
  }

  private compile(schema: JsonSchema): CompiledEntry {
    const draft = detectSchemaDraft(schema);
    if (!draft.ok) return { ok: false, reason: draft.message };
    const ajv = this.ajvFor(draft.draft);
    try {
      return { ok: true, validate: ajv.compile(schema), ajv, schema };
    } catch (error) {
      ajv.removeSchema(schema);
      return { ok: false, reason: errorMessage(error) };
    }
  }

  private ajvFor(draft: SchemaDraft): AjvCore {
    let ajv = this.ajvByDraft.get(draft);
    if (!ajv) {
      ajv = createAjv(draft);
      this.ajvByDraft.set(draft, ajv);
    }
    return ajv;
  }
}
