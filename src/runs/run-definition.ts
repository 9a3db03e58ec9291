/**
 * What runs/ knows of the workflow definition a run executes: stored as JSON, read only for node ids and types.
 * The full shape belongs to workflow/, which is above runs/.
 */
export interface RunDefinition {
  nodes: readonly RunNodeRef[];
}

export interface RunNodeRef {
  id: string;
  type: string;
}
