import type { Principal } from '../common/auth/principal';

/** Port: runs/ asks workflow/ (which registers WORKFLOW_LOOKUP) for a workflow's id, given its id or name. */
export interface WorkflowLookup {
  /** The id of the workflow the principal may see under this id or name; null when there is none. */
  idOf(idOrName: string, principal: Principal): Promise<string | null>;
}

export const WORKFLOW_LOOKUP = Symbol('WORKFLOW_LOOKUP');
