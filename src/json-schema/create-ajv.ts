import Ajv from 'ajv';
import type AjvCore from 'ajv/dist/core';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { safeRegExpEngine } from './safe-regexp';
import type { SchemaDraft } from './schema-draft';

export interface CreateAjvOptions {
  /** Fill `default` values into the validated data (run inputs, executor configs). */
  useDefaults?: boolean;
}

/**
 * One ajv instance for a draft: the only way the code base builds one, so every `pattern` runs on
 * RE2 (a lint rule keeps `ajv` imports inside json-schema/). `strict: false` tolerates annotations
 * such as `example` or `x-*` and makes unknown formats pass instead of failing compilation;
 * `addUsedSchema: false` keeps two tools declaring the same `$id` from colliding inside a shared instance.
 */
export function createAjv(draft: SchemaDraft, { useDefaults = false }: CreateAjvOptions = {}): AjvCore {
  const options = {
    strict: false,
    useDefaults,
    allErrors: true,
    verbose: true,
    addUsedSchema: false,
    logger: false as const,
    code: { regExp: safeRegExpEngine },
  };
  const ajv = draft === 'draft-07' ? new Ajv(options) : new Ajv2020(options);
  addFormats(ajv);
  return ajv;
}
