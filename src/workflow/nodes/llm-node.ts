import { isAdmin } from '../../common/auth/principal';
import type { ChatMessage } from '../../shared/chat-types';
import type { ProviderRegistry } from '../../llm/provider-registry';
import type { RegistryService } from '../../registry/registry.service';
import type { ToolRunOutcome } from '../../registry/run-tool';
import type { ToolDefinition } from '../../registry/tool-definition';
import { AgentLoopError, runAgentLoop, type AgentLoopResult } from '../agent-loop';
import type { LlmNodeData } from '../definition.types';
import { renderText } from '../references';
import type { NodeHandler } from './node-handler';

const PREVIEW_CHARS = 1000;

export interface LlmNodeDependencies {
  providers: ProviderRegistry;
  defaultProvider: string;
  registry: RegistryService;
  /** Time limit of a node that sets no `timeout_ms` (LLM_NODE_TIMEOUT_MS). */
  defaultTimeoutMs: number;
}

/** Tools are on when `enable_tools` is true, or left out while `tools` lists some. */
export const toolsEnabled = (data: LlmNodeData): boolean =>
  data.enable_tools !== false && Array.isArray(data.tools) && data.tools.length > 0;

const nodeOutput = (result: AgentLoopResult) => ({
  output: result.output,
  stop_reason: result.stopReason,
  iterations_used: result.iterationsUsed,
  tool_calls: result.toolCalls,
  usage: {
    prompt_tokens: result.usage.promptTokens,
    completion_tokens: result.usage.completionTokens,
    total_tokens: result.usage.totalTokens,
    model_calls: result.usage.modelCalls,
  },
});

/** The LLM node: renders its prompts, resolves its tools, and runs the tool-calling loop with live events. */
export function createLlmNode(deps: LlmNodeDependencies): NodeHandler {
  return {
    async run(node, scope, run) {
      const data = node.data as unknown as LlmNodeData;
      const providerName = data.provider ?? deps.defaultProvider;
      const provider = deps.providers.getProvider(providerName);
      const model = deps.providers.resolveModel(providerName, data.model);

      let tools: ToolDefinition[] = [];
      if (toolsEnabled(data)) {
        const resolved = await deps.registry.resolve(data.tools ?? [], run.principal);
        const unusable = [...resolved.missing, ...resolved.disabled];
        if (unusable.length > 0) throw new Error(`tools not available: ${unusable.join(', ')}`);
        tools = resolved.definitions;
      }
      const messages: ChatMessage[] = [];
      const system = data.system ? renderText(data.system, scope) : '';
      if (system) messages.push({ role: 'system', content: system });
      messages.push({ role: 'user', content: renderText(data.prompt, scope) });

      const timeoutMs = data.timeout_ms ?? deps.defaultTimeoutMs;
      const emit = run.emit.bind(run);
      const toolContext = {
        runId: run.runId,
        userId: run.principal.userId,
        isAdmin: isAdmin(run.principal),
        depth: run.depth,
      };
      try {
        const result = await runAgentLoop<ToolRunOutcome>({
          provider,
          model,
          messages,
          tools,
          executeTool: (call, history, signal) =>
            deps.registry.runCall({
              call,
              tools,
              nodeId: node.id,
              messages: history,
              context: { ...toolContext, signal },
            }),
          maxIterations: data.max_iterations,
          toolChoice: tools.length > 0 ? data.tool_choice : undefined,
          parallelToolCalls: tools.length > 0 ? data.parallel_tool_calls : undefined,
          temperature: data.temperature,
          maxTokens: data.max_tokens,
          onMaxIterations: data.on_max_iterations,
          maxToolCalls: data.max_tool_calls,
          maxTotalTokens: data.max_total_tokens,
          timeoutMs,
          signal: run.signal,
          hooks: {
            onText: (delta) => emit('llm.delta', { node_id: node.id, delta }),
            onReasoning: (delta) => emit('llm.reasoning', { node_id: node.id, delta }),
            onToolCall: ({ id, name, index }) => emit('tool.call', { node_id: node.id, call_id: id, name, index }),
            onToolParam: ({ id, name, argsDelta }) =>
              emit('tool.args.delta', { node_id: node.id, call_id: id, name, delta: argsDelta }),
            onAfterToolCall: (outcome) =>
              emit('tool.result', {
                node_id: node.id,
                call_id: outcome.call.id,
                name: outcome.toolName,
                status: outcome.status,
                duration_ms: outcome.metadata.duration_ms,
                response: outcome.response.slice(0, PREVIEW_CHARS),
              }),
            onRetry: ({ attempt, delayMs, reason }) =>
              emit('llm.retry', { node_id: node.id, attempt, delay_ms: delayMs, reason }),
          },
        });
        if (result.stopReason === 'timeout') {
          const limit = data.timeout_ms === undefined ? 'LLM_NODE_TIMEOUT_MS' : 'timeout_ms';
          throw new Error(`the LLM node ran out of time: its limit of ${timeoutMs} ms (${limit}) passed`);
        }
        return nodeOutput(result);
      } catch (error) {
        if (error instanceof AgentLoopError && error.stopReason !== 'cancelled') {
          throw new Error(error.message, { cause: error });
        }
        throw error;
      }
    },
  };
}
