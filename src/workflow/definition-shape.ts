import type { ErrorObject } from 'ajv';
import type { FieldProblem } from '../common/errors/domain-error';
import { createAjv } from '../json-schema/create-ajv';
import { closestMatch } from '../json-schema/edit-distance';
import { WORKFLOW_DEFINITION_SCHEMA } from './definition.schema';
import type { WorkflowDefinition } from './definition.schema';

const validateShape = createAjv('draft-07').compile<WorkflowDefinition>(WORKFLOW_DEFINITION_SCHEMA);

const nodeIdAt = (input: unknown, index: number): string | null => {
  const nodes = (input as { nodes?: unknown }).nodes;
  const id = Array.isArray(nodes) ? (nodes[index] as { id?: unknown } | undefined)?.id : undefined;
  return typeof id === 'string' ? id : null;
};

/** `/nodes/1/data/prompt` → `nodes[1](llm-1).data.prompt`: problems inside a node name it. */
const fieldOf = (input: unknown, instancePath: string): string => {
  const parts = instancePath.split('/').slice(1);
  return parts
    .map((part, position) => {
      if (!/^\d+$/.test(part)) return `.${part}`;
      const id = position === 1 && parts[0] === 'nodes' ? nodeIdAt(input, Number(part)) : null;
      return id === null ? `[${part}]` : `[${part}](${id})`;
    })
    .join('')
    .replace(/^\./, '');
};

/** The known field closest to an unknown one. */
const suggestionOf = (error: ErrorObject): string | undefined => {
  if (error.keyword !== 'additionalProperties') return undefined;
  const field = (error.params as { additionalProperty: string }).additionalProperty;
  return closestMatch(field, Object.keys((error.parentSchema?.properties ?? {}) as object));
};

const detailOf = (error: ErrorObject): string => {
  if (error.keyword === 'additionalProperties') {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    const known = Object.keys((error.parentSchema?.properties ?? {}) as object);
    const closest = suggestionOf(error);
    return ` "${field}"${closest ? `; did you mean "${closest}"?` : `; known: ${known.join(', ')}`}`;
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    return `: ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  return '';
};

/** Problems of a definition against the published JSON Schema; none means it has the WorkflowDefinition shape. */
export function checkShape(input: unknown): FieldProblem[] {
  if (validateShape(input)) return [];
  return (validateShape.errors ?? [])
    .filter((error) => error.keyword !== 'if')
    .map((error) => {
      const path = fieldOf(input, error.instancePath);
      const suggestion = suggestionOf(error);
      return {
        field: `definition${path ? `.${path}` : ''}`,
        message: `${error.message ?? 'is invalid'}${detailOf(error)}`,
        ...(suggestion ? { suggestion } : {}),
      };
    });
}
