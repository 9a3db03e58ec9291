import { ArgumentValidator } from '../json-schema/argument-validator';

/** The validator of the JSON Schemas assertions carry, compiled once per schema text. */
export const schemaValidator = new ArgumentValidator({ cacheSize: 200 });

/** The cache key of a schema: its text, so an edited schema compiles anew. */
export const schemaKey = (schema: Record<string, unknown>): string => `assertion:${JSON.stringify(schema)}`;
