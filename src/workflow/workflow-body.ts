import { Injectable, type PipeTransform } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { isRecord } from '../shared/is-record';

/** A workflow create/replace body in one shape, whichever of the two accepted shapes it came in. */
export interface WorkflowBody {
  /** The definition, not yet validated: the service checks it against the caller's tools and providers. */
  definition: unknown;
  /** Absent when the body did not say; a replace then keeps the stored value. */
  isPublic?: boolean;
  /** Absent when the body did not say: a new workflow is enabled, a replace keeps the stored value. */
  enabled?: boolean;
  /** Where the definition sat in the body, so validation problems name the field the client sent. */
  field: 'definition' | 'body';
}

/**
 * Accepts the definition itself (optionally with `is_public` and `enabled`) or `{definition, is_public, enabled}`.
 * A body with `nodes` is a definition even if it also has a `definition` key.
 */
export const normalizeWorkflowBody = (body: unknown): WorkflowBody => {
  if (!isRecord(body))
    throw DomainError.validation([{ field: 'body', message: 'must be a workflow definition object' }]);
  const wrapped = 'definition' in body && !('nodes' in body);
  const { is_public: isPublic, enabled, ...rest } = body;
  const problems = [
    ...(isPublic !== undefined && typeof isPublic !== 'boolean'
      ? [{ field: 'is_public', message: 'must be a boolean' }]
      : []),
    ...(enabled !== undefined && typeof enabled !== 'boolean'
      ? [{ field: 'enabled', message: 'must be a boolean' }]
      : []),
  ];
  if (problems.length > 0) throw DomainError.validation(problems);
  const flags = { isPublic: isPublic as boolean | undefined, enabled: enabled as boolean | undefined };
  return wrapped
    ? { definition: rest.definition, ...flags, field: 'definition' }
    : { definition: rest, ...flags, field: 'body' };
};

@Injectable()
export class WorkflowBodyPipe implements PipeTransform<unknown, WorkflowBody> {
  transform(value: unknown): WorkflowBody {
    return normalizeWorkflowBody(value);
  }
}
