import type { Statement } from '../common/plain-sql';

/** Bumps the use count of a stored tool by `count` calls; tools/ implements it, the module that wires tools registers it. */
export interface ToolUseCounts {
  add(toolId: string, count: number): Promise<void>;
  /** The UPDATE `add` sends, built but not sent: it goes with the calls' log rows, in one round trip (inOrder). */
  addition(toolId: string, count: number): Statement;
}

/** The port call-logs/ writes use counts through, beside the log rows (see CallLogWriter). */
export const TOOL_USE_COUNTS = Symbol('TOOL_USE_COUNTS');
