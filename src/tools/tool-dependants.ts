import type { Dependant } from '../common/dependants';
import type { StoredTool } from './stored-tool';

/** Injection token of the ToolDependants port; the workflow module provides it. */
export const TOOL_DEPENDANTS = Symbol('TOOL_DEPENDANTS');

/** Port: who uses a tool. tools/ cannot see stored workflows; workflow/ can. */
export interface ToolDependants {
  /** Stored workflows whose nodes name the tool and would resolve that name to it. */
  workflowsUsing(tool: StoredTool): Promise<Dependant[]>;
  /** Turns stored workflows off: what `?force=true` does to those that used a deleted tool. */
  disableWorkflows(ids: readonly string[]): Promise<void>;
}
