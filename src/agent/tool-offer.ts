import type { ToolChoice } from '../llm/provider';
import type { FunctionTool } from '../shared/tool-types';

export interface ToolOffer {
  tools?: FunctionTool[];
  toolChoice?: ToolChoice;
}

export interface ToolOfferInput {
  tools: readonly FunctionTool[];
  disabled: ReadonlySet<string>;
  toolChoice: ToolChoice | undefined;
  /** False once a forced choice was satisfied by a valid call. */
  forcing: boolean;
}

/**
 * Tools and tool_choice for one model call. Disabled tools are not offered and never forced.
 * With every tool disabled, all definitions are still sent with `none`: providers reject
 * tool messages in the history when no tool is defined.
 */
export const selectToolOffer = ({ tools, disabled, toolChoice, forcing }: ToolOfferInput): ToolOffer => {
  if (tools.length === 0) return {};
  const enabled = tools.filter((tool) => !disabled.has(tool.function.name));
  if (enabled.length === 0) return { tools: [...tools], toolChoice: 'none' };
  if (toolChoice === undefined) return { tools: enabled };
  if (toolChoice === 'auto' || toolChoice === 'none') return { tools: enabled, toolChoice };
  if (!forcing) return { tools: enabled, toolChoice: 'auto' };
  if (toolChoice === 'required') return { tools: enabled, toolChoice };
  const forcedEnabled = enabled.some((tool) => tool.function.name === toolChoice.name);
  return { tools: enabled, toolChoice: forcedEnabled ? toolChoice : 'auto' };
};

/** Whether a valid call of `name` fulfils the forced choice, so later calls may go back to `auto`. */
export const satisfiesToolChoice = (toolChoice: ToolChoice | undefined, name: string): boolean => {
  if (toolChoice === 'required') return true;
  return typeof toolChoice === 'object' && toolChoice.name === name;
};
