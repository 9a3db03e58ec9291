/**
 * What runs/ knows of the workflow definition a run executes: stored as JSON, read only for node ids and types.
 * The full shape belongs to workflow/, which is above runs/.
 */
export interface RunDefinition {
  /** The workflow's name as the run executes it (an inline run's too). */
  name?: string;
  nodes: readonly RunNodeRef[];
}

export interface RunNodeRef {
  id: string;
  type: string;
}
