import type { Dependant } from '../common/dependants';
import type { StoredTool } from './stored-tool';

/** Token of the ToolDependants port (a Port, see common/port.ts); the workflow module registers it. */
export const TOOL_DEPENDANTS = Symbol('TOOL_DEPENDANTS');

/** Port: who uses a tool. tools/ cannot see stored workflows; workflow/ can. */
export interface ToolDependants {
  /** Stored workflows whose nodes name the tool and would resolve that name to it. */
  workflowsUsing(tool: StoredTool): Promise<Dependant[]>;
  /** Turns stored workflows off: what `?force=true` does to those that used a deleted tool. */
  disableWorkflows(ids: readonly string[]): Promise<void>;
}
