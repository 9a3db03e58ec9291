/** What a run (or an approval of one) says about its workflow. */
export interface WorkflowOfRun {
  workflow_id?: string | null;
  workflow_name?: string | null;
  workflow_version?: number | null;
}

/**
 * A run's workflow as a person reads it: its name and the version the run pinned ("refunds v3"), "(inline)" for
 * a definition sent with the run; the id's first characters only when the run has no name for it.
 */
export function workflowLabel({ workflow_id, workflow_name, workflow_version }: WorkflowOfRun): string {
  const name = workflow_name ?? (workflow_id ? workflow_id.slice(0, 8) : '');
  if (!workflow_id) return `${name} (inline)`;
  return workflow_version === null || workflow_version === undefined ? name : `${name} v${workflow_version}`;
}
