import { uniqueToolName } from '../tool-name';
import type { ImportOperation } from './openapi-operations';

const MAX_NAME = 64;

/**
 * The tool name of an operation: prefix + operationId (or method and path), characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`, cut to 64, and numbered when `taken` already holds it.
 */
export const toolNameFor = (operation: ImportOperation, prefix: string, taken: Set<string>): string => {
  const raw = operation.operationId ?? `${operation.method}_${operation.path}`.replace(/[{}]/g, '');
  let stem = raw.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (!operation.operationId) stem = stem.replace(/_+/g, '_').replace(/^_|_$/g, '');
  const name = uniqueToolName(`${prefix}${stem}`.slice(0, MAX_NAME), taken);
  taken.add(name);
  return name;
};
