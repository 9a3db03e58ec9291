import { type Static, type TSchema, type TUnsafe, Type, type UnsafeOptions } from '@sinclair/typebox';

/** `{ enum: [...] }` typed as the union of its values (TypeBox's own union would publish an `anyOf` of consts). */
export const enumOf = <const T extends readonly (string | number | boolean)[]>(
  values: T,
  options: UnsafeOptions = {},
): TUnsafe<T[number]> => Type.Unsafe<T[number]>({ ...options, enum: [...values] });

/** An object whose keys are free (outputs, arguments): `{ type: 'object' }` typed as a record. */
export const freeObject = (options: UnsafeOptions = {}): TUnsafe<Record<string, unknown>> =>
  Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object' });

/** An object of free keys whose values share one schema, as `additionalProperties` (not TypeBox's `patternProperties`). */
export const mapOf = <T extends TSchema>(values: T, options: UnsafeOptions = {}): TUnsafe<Record<string, Static<T>>> =>
  Type.Unsafe<Record<string, Static<T>>>({ ...options, type: 'object', additionalProperties: values });
