import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { JsonSchema } from '../../shared/tool-types';

/** What a node's output shape may depend on besides the node's own data. */
export interface OutputShapeContext {
  /** The definition's `inputs` schema: the start node outputs the run inputs. */
  inputs?: JsonSchema;
}

/**
 * The JSON Schema of what a node outputs: what a `{{node.path}}` reference reads. A closed object (the default
 * of `outputObject`) refuses any other field at save; an empty schema (`Type.Unknown()`) is any JSON, checked
 * only at run time.
 */
export type OutputShape = TSchema | JsonSchema;

/** The keyword naming the field that replaced a deprecated output field. */
export const REPLACED_BY = 'x-replaced-by';

/** A closed object: references to any other field are refused when the workflow is saved. */
export const outputObject = (properties: TProperties, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

/** Options of a field kept for definitions saved before it was renamed: it still works, and the save warns. */
export const replacedBy = (replacement: string, description: string) => ({
  description: `${description} (deprecated: use ${replacement})`,
  deprecated: true,
  [REPLACED_BY]: replacement,
});
