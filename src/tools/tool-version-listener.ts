/** Token of the ToolVersionListener port (a Port, see common/port.ts); the workflow module registers it. */
export const TOOL_VERSION_LISTENER = Symbol('TOOL_VERSION_LISTENER');

/** A tool's version now; null when the tool was deleted. */
export interface ToolVersionChange {
  id: string;
  version: number | null;
}

/** Port: data kept per tool version above tools/ (the workflow module's tool embeddings). */
export interface ToolVersionListener {
  /** The tools stand at these versions now: what was kept for their other versions (or for a deleted tool) may go. */
  toolsChanged(changes: readonly ToolVersionChange[]): Promise<void>;
}
