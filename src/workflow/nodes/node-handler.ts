import type { Static, TSchema } from '@sinclair/typebox';
import type { PriceTable } from '../../llm/model-prices';
import type { ProviderRegistry } from '../../llm/provider-registry';
import type { RegistryService } from '../../registry/registry.service';
import type { ToolCalls } from '../../executors/tool-calls.service';
import type { CallLogWriter } from '../../call-logs/call-log-writer.service';
import type { ApprovalsService } from '../../runs/approvals.service';
import type { Scope } from '../references';
import type { RunContext } from '../execution/run-context';
import type { ToolVectorStore } from '../../agent/selection/tool-vectors';
import type { OwnerEvidenceSource } from '../../agent/selection/usage-evidence';
import type { NodeState, NodeStep } from '../execution/run-checkpointer';
import type { OutputShape, OutputShapeContext } from './output-shape';
import type { ToolCallStatus } from '../../shared/tool-call-status';
import type { AgentToolCallRecord } from '../../agent/agent-loop-result';

/** What handlers use at run time; the workflow module provides it. */
export interface NodeServices {
  providers: ProviderRegistry;
  /** Prices model calls (cost on events, node usage and the run's budget); absent: calls carry no cost. */
  prices?: PriceTable;
  defaultProvider: string;
  /** Resolves the tools a node names or selects. */
  registry: RegistryService;
  /** Runs (and logs) the calls of LLM and tool nodes. */
  toolCalls: ToolCalls;
  /** Stores the logged calls of a run at the end of each step. */
  callLogs: Pick<CallLogWriter, 'flushRunInBackground'>;
  /** Time limit of an LLM node that sets no `timeout_ms` (LLM_NODE_TIMEOUT_MS). */
  defaultTimeoutMs: number;
  /** Where LLM nodes keep results they cut, and the default limit (LLM_MAX_TOOL_RESULT_TOKENS); absent: no cutting. */
  toolResults?: { maxTokens: number; store: ToolResultStore };
  /** Where tool embeddings are kept (per tool version and model); absent: tool selection is lexical only. */
  toolEmbeddings?: ToolVectorStore;
  /** What each owner's runs taught tool selection (TOOL_SELECTION_LEARNING, stored); absent: selection does not learn. */
  toolUsage?: OwnerEvidenceSource;
  /** Where tool calls that need a person's approval wait for the decision; absent: such calls are not run. */
  approvals?: Pick<ApprovalsService, 'request'>;
  /** Bounds of map nodes (MAP_MAX_ITEMS, MAP_MAX_CONCURRENCY); absent: the defaults. */
  nested?: { maxItems: number; maxConcurrency: number };
}

/** Full tool results of a run, stored once and read back by ref (the runs module provides it). */
export interface ToolResultStore {
  store(result: { runId: string; nodeId: string; callId: string; toolName: string; content: string }): Promise<string>;
  read(runId: string, ref: string): Promise<string | null>;
}

/**
 * A tool call a node's stored state holds as answered, with a log row of its own (see NodeHandler.answeredCalls): the
 * loop's record of the call, narrowed to the calls that ran or were answered through a hook.
 */
export type AnsweredCall = Omit<AgentToolCallRecord, 'status'> & { status: ToolCallStatus };

/** What checks beyond the schema may consult: the configured providers. */
export type NodeCheckContext = Pick<NodeServices, 'defaultProvider'> & {
  providers: Pick<ProviderRegistry, 'has' | 'names' | 'resolveModel' | 'embeds'>;
};

/** A problem inside a node's `data`; `field` is relative to it (`tools`, `provider`). */
export interface DataProblem {
  field: string;
  message: string;
  /**
   * Set when the problem is this service's configuration (a provider or model it does not have), not the
   * definition's: a bundle import keeps such a workflow with a warning; saving or running it here is refused.
   */
  unconfigured?: true;
}

/** The tools a node calls and the `data` field that names them. */
export interface ToolUse {
  field: string;
  names: string[];
  /** What the node's selectors add at run time: every usable tool of a category, or of every one (null). */
  selectors?: Array<string | null>;
}

/**
 * A node as its handler sees it. The typed union of nodes (definition.schema's `WorkflowNode`) is derived from the
 * handlers, so this file names only the fields handlers read: importing it back would make a cycle.
 */
export interface HandlerNode {
  id: string;
  type: string;
  data?: unknown;
}

/** The run's definition as handlers see it (the end node looks at the other nodes and the run outputs). */
export interface HandlerDefinition {
  nodes: readonly HandlerNode[];
  outputs?: Record<string, unknown>;
}

/** A graph nested in a node (map, loop), run as a small workflow of its own: one start node, at least one end node. */
export interface NestedGraph {
  /** The data field that holds its nodes; `edges` sits beside it. */
  field: string;
  nodes: HandlerNode[];
  edges: HandlerEdge[];
}

/** An edge as handlers see it (see HandlerNode). */
export interface HandlerEdge {
  source: string;
  target: string;
  condition?: 'true' | 'false' | boolean;
}

/** How one run of a nested graph ended: its end node's `outputs`, and the output of each of its nodes that ran. */
export interface NestedGraphResult {
  outputs: Record<string, unknown>;
  nodes: Record<string, Record<string, unknown>>;
}

/**
 * Runs a nested graph once, with `scope` (the node's scope plus its own names) visible to its references. Its nodes
 * have no node runs and no checkpoints of their own: the node that runs it checkpoints each run's result.
 */
export type NestedGraphRunner = (graph: NestedGraph, scope: Scope, run: RunContext) => Promise<NestedGraphResult>;

export interface NodeRunInput<D> {
  node: HandlerNode;
  data: D;
  scope: Scope;
  run: RunContext;
  definition: HandlerDefinition;
  services: NodeServices;
  /** Every node type's handler, for handlers that look at other nodes (the end node). */
  handlers: Readonly<Record<string, NodeHandler>>;
  /** The node's step checkpoint (absent when the run keeps none): handlers with long steps resume from it. */
  step?: NodeStep;
  /** Runs a graph nested in the node (see NodeHandler.nested). */
  runGraph: NestedGraphRunner;
}

/**
 * One node type. Everything about it lives here: the JSON Schema of its `data` (which also yields the
 * TS type and the published schema), the shape of its output (what references read), the tools it calls,
 * checks beyond the schema, and how it runs. Validation and the engine only loop over handlers.
 */
export interface NodeHandler<S extends TSchema = TSchema> {
  readonly data: S;
  /**
   * The JSON Schema of the node's output, which `{{node.path}}` references are checked against at save; it may
   * depend on the node's data (an LLM node's `output_schema`) and on the definition (the start node's inputs).
   */
  output(data: Static<S>, context: OutputShapeContext): OutputShape;
  /** Every run starts at the one node of an entry type. */
  readonly entry?: boolean;
  /** Reaching a node of an exit type ends the run; its output's `outputs` are the run's. */
  readonly exit?: boolean;
  /** Its boolean `output` chooses the edges (`condition: true | false`) that go on. */
  readonly branches?: boolean;
  /** Its `output` is an answer: the run's output when nothing else names one. */
  readonly answers?: boolean;
  /**
   * It only computes its output from the scope (no calls, no effects): not checkpointed and its node run
   * written once, when it ended; a resumed run computes it again.
   */
  readonly pure?: boolean;
  toolsUsed?(data: Static<S>): ToolUse | null;
  /**
   * The graph nested in its data (map, loop): checked like a workflow at save, its tools resolved and renamed
   * with the node's; null when the data holds none.
   */
  nested?(data: Static<S>): NestedGraph | null;
  /**
   * Names the node puts in scope for the references of its own data and of its nested graph (`item`,
   * `iteration`), with the shape of each.
   */
  scope?(data: Static<S>): Record<string, OutputShape>;
  /** The data with every tool name it holds passed through `rename` (an import that renamed tools rewires them). */
  renameTools?(data: Static<S>, rename: (name: string) => string): Static<S>;
  check?(data: Static<S>, context: NodeCheckContext): DataProblem[];
  /**
   * The calls with a log row (see ToolCalls.runCall) that its stored state (its output once it finished,
   * else its step) holds as answered, in the order they were made: a resumed run writes the rows of those whose
   * logs the process that died had not written yet.
   */
  answeredCalls?(state: NodeState): AnsweredCall[];
  run(input: NodeRunInput<Static<S>>): Promise<Record<string, unknown>>;
}
