import type { Principal } from '../common/auth/principal';

/**
 * Port: runs/ (and the modules above it that read runs) ask workflow/ (which registers WORKFLOW_LOOKUP) for a
 * workflow's id, given its id or name, and for workflows' names.
 */
export interface WorkflowLookup {
  /** The id of the workflow the principal may see under this id or name; null when there is none. */
  idOf(idOrName: string, principal: Principal): Promise<string | null>;
  /** The names of the stored workflows with these ids, by id (a deleted workflow has none). */
  namesOf(ids: readonly string[]): Promise<Map<string, string>>;
}

export const WORKFLOW_LOOKUP = Symbol('WORKFLOW_LOOKUP');
