import type { JsonSchema } from '../shared/tool-types';
import type { Condition } from './nodes/condition-operators';

export const NODE_TYPES = ['start', 'llm', 'template', 'condition', 'tool', 'end'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export interface LlmNodeData {
  label?: string;
  provider?: string;
  model?: string;
  system?: string;
  prompt: string;
  enable_tools?: boolean;
  tools?: string[];
  temperature?: number;
  max_tokens?: number;
  max_iterations?: number;
  tool_choice?: 'auto' | 'required' | 'none' | { name: string };
  parallel_tool_calls?: boolean;
  on_max_iterations?: 'final_answer' | 'fail';
  timeout_ms?: number;
  max_tool_calls?: number;
  max_total_tokens?: number;
}

export interface ConditionNodeData {
  label?: string;
  conditions: Condition[];
  logic?: 'and' | 'or';
}

export interface WorkflowNode {
  id: string;
  type: NodeType;
  data: Record<string, unknown>;
}

export interface WorkflowEdge {
  source: string;
  target: string;
  /** On edges leaving a condition node: the branch ("true" or "false") that activates the edge. */
  condition?: 'true' | 'false' | boolean;
}

/** A workflow as users write it in JSON. */
export interface WorkflowDefinition {
  name: string;
  description?: string;
  inputs?: JsonSchema;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** Run outputs; values may reference nodes (`{{llm-1.output}}`). Defaults to the end node's outputs. */
  outputs?: Record<string, unknown>;
}
