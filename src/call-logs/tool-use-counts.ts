/** Bumps the use count of a stored tool by `count` calls; tools/ implements it, the module that wires tools registers it. */
export interface ToolUseCounts {
  add(toolId: string, count: number): Promise<void>;
}

/** The port call-logs/ writes use counts through, beside the log rows (see CallLogWriter). */
export const TOOL_USE_COUNTS = Symbol('TOOL_USE_COUNTS');
