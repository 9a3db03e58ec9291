import { type Static, Type } from '@sinclair/typebox';
import { isAdmin } from '../../common/auth/principal';
import { enumOf } from '../../json-schema/schema-helpers';
import type { ChatMessage } from '../../shared/chat-types';
import type { ToolCallStatus } from '../../shared/tool-call-status';
import type { ToolCall } from '../../shared/tool-types';
import { JsonTextRedactor } from '../../shared/json-text-redactor';
import { secretArgumentNames } from '../../shared/argument-secrets';
import { MIN_CONTEXT_WINDOW } from '../../config/provider-config';
import { REASONING_EFFORTS } from '../../llm/provider';
import { stoppedCallResponse, type ToolRunOutcome } from '../../registry/run-tool';
import type { ToolDefinition } from '../../shared/tool-definition';
import {
  type AgentLoopCheckpoint,
  AgentLoopError,
  type AgentLoopResult,
  runAgentLoop,
  type ToolResultLimit,
} from '../../agent/agent-loop';
import { readToolResultTool } from '../../agent/read-tool-result';
import { answeredCallsOfCheckpoint, answeredCallsOfRecords } from './answered-calls';
import type { AgentToolCallRecord } from '../../agent/agent-loop-result';
import { renderText, resolveReferences } from '../references';
import { NodeFailure } from '../execution/run-context';
import type { DataProblem, NodeCheckContext, NodeHandler, NodeServices } from './node-handler';
import { historyMessages } from './history-messages';
import { namedTools, ToolEntry, ToolSelectionData, toolSelectionFor, toolSelectors } from './llm-node-tools';
import { toolsOfNode } from './node-tools';
import { referenceText } from './reference-text';
import { llmNodeOutput, llmNodeOutputShape } from './llm-node-output';
import { approvalGateFor } from './node-approvals';
import { checkEmbeddings, semanticSearchFor } from './llm-node-embeddings';
import {
  checkOutputSchema,
  DEFAULT_OUTPUT_RETRIES,
  outputSchemaCheck,
  readStructuredAnswer,
  responseFormatFor,
  structuredOutputFields,
} from './llm-node-structured-output';

const PREVIEW_CHARS = 1000;

const LlmNodeData = Type.Object(
  {
    label: Type.Optional(Type.String()),
    provider: Type.Optional(
      Type.String({ description: 'Configured provider name (openai, ollama, …); default LLM_DEFAULT_PROVIDER' }),
    ),
    model: Type.Optional(Type.String({ description: "Model name; default the provider's default_model" })),
    system: Type.Optional(referenceText),
    prompt: referenceText,
    messages: Type.Optional(
      Type.String({
        description:
          'Earlier turns, e.g. {{inputs.messages}}: an array of {role: user|assistant, content}, sent between system and prompt',
      }),
    ),
    // No schema default: `false` there said tools were off unless enabled, while a node that lists tools has
    // always used them (saved workflows rely on it); the absence of the field means "on when tools lists some".
    enable_tools: Type.Optional(
      Type.Boolean({
        description:
          'Whether the listed tools are offered: on when tools lists some and this is not false; false turns them off',
      }),
    ),
    tools: Type.Optional(
      Type.Array(ToolEntry, {
        uniqueItems: true,
        maxItems: 128,
        description: 'Tool names, "*" (every enabled tool you may use) and {"category": "…"}',
      }),
    ),
    tool_selection: Type.Optional(ToolSelectionData),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    reasoning_effort: Type.Optional(
      enumOf(REASONING_EFFORTS, {
        description: 'Anthropic: thinking budget; OpenAI: reasoning effort; Ollama: think',
      }),
    ),
    max_iterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5 })),
    tool_choice: Type.Optional(
      Type.Union([
        enumOf(['auto', 'required', 'none']),
        Type.Object({ name: Type.String() }, { additionalProperties: false }),
      ]),
    ),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    on_max_iterations: Type.Optional(enumOf(['final_answer', 'fail'], { default: 'final_answer' })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
    max_tool_calls: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    max_total_tokens: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Tokens the node's model calls may use together: each call is capped to what is left after its prompt, " +
          'and one that cannot hold its prompt plus a short answer is not made (stop_reason budget_tokens)',
      }),
    ),
    context_window: Type.Optional(
      Type.Integer({
        minimum: MIN_CONTEXT_WINDOW,
        maximum: 10_000_000,
        description:
          "Tokens (in plus out) the model takes; default the provider's setting for the model, else the model family's",
      }),
    ),
    summarize_results: Type.Optional(
      Type.Boolean({
        description: 'Summarise a result longer than max_tool_result_tokens with a model instead of cutting it',
      }),
    ),
    summarize_model: Type.Optional(
      Type.String({ description: "Model of the node's provider that writes the summaries; default the node's model" }),
    ),
    max_tool_result_tokens: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 1_000_000,
        description: 'Longer tool results are cut for the model and readable with read_tool_result',
      }),
    ),
    ...structuredOutputFields,
  },
  { additionalProperties: false },
);
export type LlmNodeData = Static<typeof LlmNodeData>;

/** The one place that decides whether tools are on: `enable_tools` not false and `tools` listing some. */
const toolsUsed = (data: LlmNodeData) =>
  data.enable_tools !== false && data.tools !== undefined && data.tools.length > 0
    ? { field: 'tools', names: namedTools(data.tools), selectors: toolSelectors(data.tools) }
    : null;

const check = (data: LlmNodeData, context: NodeCheckContext): DataProblem[] => {
  const { providers, defaultProvider } = context;
  const problems: DataProblem[] = [];
  if (data.enable_tools === true && (data.tools ?? []).length === 0) {
    problems.push({ field: 'tools', message: 'enable_tools is true but no tools are listed' });
  }
  const provider = data.provider ?? defaultProvider;
  if (!providers.has(provider)) {
    problems.push({
      field: 'provider',
      message: `unknown provider "${provider}"; configured: ${providers.names.join(', ')}`,
    });
    return problems;
  }
  try {
    providers.resolveModel(provider, data.model);
  } catch (error) {
    problems.push({ field: 'model', message: (error as Error).message });
  }
  problems.push(...checkEmbeddings(data.tool_selection, provider, context));
  if (data.output_schema !== undefined) problems.push(...checkOutputSchema(data.output_schema));
  return problems;
};

/** A call a replay answers with the result its recording sent the model, logged like a run call. */
async function replayedCall(
  call: ToolCall,
  recorded: { content: string; isError: boolean },
  log: (status: ToolCallStatus) => Promise<void>,
): Promise<ToolRunOutcome> {
  const status: ToolCallStatus = recorded.isError ? 'error' : 'success';
  const now = new Date();
  await log(status);
  return {
    call,
    toolName: call.name,
    status,
    response: recorded.content,
    metadata: { duration_ms: 0, replayed: true },
    startedAt: now,
    finishedAt: now,
  };
}

/** Cutting of long tool results, with the reader tool over this run's stored results; off without a store. */
function resultLimit(
  data: LlmNodeData,
  deps: NodeServices,
  runId: string,
  nodeId: string,
  summarize: ToolResultLimit['summarize'],
): { limit: ToolResultLimit; reader: ToolDefinition } | undefined {
  if (deps.toolResults === undefined) return undefined;
  const { store } = deps.toolResults;
  const maxTokens = data.max_tool_result_tokens ?? deps.toolResults.maxTokens;
  // Pages of one result are often read one after the other, or all at once: fetch each result once per node.
  const fetched = new Map<string, Promise<string | null>>();
  const read = (ref: string): Promise<string | null> => {
    let content = fetched.get(ref);
    if (content === undefined) {
      content = store.read(runId, ref);
      content.catch(() => fetched.delete(ref));
      fetched.set(ref, content);
    }
    return content;
  };
  const reader = readToolResultTool(read, maxTokens);
  const limit: ToolResultLimit = {
    maxTokens,
    store: (call, content) => store.store({ runId, nodeId, callId: call.id, toolName: call.name, content }),
    ...(summarize ? { summarize } : {}),
  };
  return { limit, reader };
}

/** The LLM node: renders its prompts, resolves its tools, and runs the tool-calling loop with live events. */
export const llmNode: NodeHandler<typeof LlmNodeData> = {
  data: LlmNodeData,
  output: llmNodeOutputShape,
  answers: true,
  toolsUsed,
  renameTools: (data, rename) => ({
    ...data,
    ...(data.tools && {
      tools: data.tools.map((entry) => (typeof entry === 'string' && entry !== '*' ? rename(entry) : entry)),
    }),
    ...(data.tool_selection?.always && {
      tool_selection: { ...data.tool_selection, always: data.tool_selection.always.map(rename) },
    }),
    ...(typeof data.tool_choice === 'object' && { tool_choice: { name: rename(data.tool_choice.name) } }),
  }),
  check,
  answeredCalls: ({ output, step }) => {
    if (output) return answeredCallsOfRecords((output.tool_calls as AgentToolCallRecord[] | undefined) ?? []);
    return step ? answeredCallsOfCheckpoint(step as AgentLoopCheckpoint) : [];
  },
  async run({ node, data, scope, run, services: deps, step }) {
    const providerName = data.provider ?? deps.defaultProvider;
    const configured = deps.providers.getProvider(providerName);
    const provider = run.models?.provider(node.id, configured) ?? configured;
    const model = deps.providers.resolveModel(providerName, data.model);

    const use = toolsUsed(data);
    const tools = use ? await toolsOfNode(node.id, use, run, deps.registry) : [];
    const secretArguments = secretArgumentNames(...tools.map((tool) => tool.schema.function.parameters));
    // With an output_schema the output counts the answers sent back (see outputSchemaCheck).
    const nodeOutput = (result: AgentLoopResult) => ({
      ...llmNodeOutput(result, secretArguments),
      ...(data.output_schema === undefined ? {} : { output_retries: result.answerRetries }),
    });
    const offeredTools: string[][] = [];
    let callLogsStored: Promise<void> = Promise.resolve();
    const messages: ChatMessage[] = [];
    const system = data.system ? renderText(data.system, scope) : '';
    if (system) messages.push({ role: 'system', content: system });
    messages.push(...historyMessages(resolveReferences(data.messages, scope)));
    messages.push({ role: 'user', content: renderText(data.prompt, scope) });

    const timeoutMs = data.timeout_ms ?? deps.defaultTimeoutMs;
    const emit = run.emit.bind(run);
    const argumentStreams = new Map<string, JsonTextRedactor>();
    const redactedDelta = (callId: string, delta: string) => {
      let redactor = argumentStreams.get(callId);
      if (!redactor) argumentStreams.set(callId, (redactor = new JsonTextRedactor(secretArguments)));
      return redactor.push(delta);
    };
    const toolContext = {
      runId: run.runId,
      userId: run.principal.userId,
      isAdmin: isAdmin(run.principal),
      depth: run.depth,
    };
    const contextWindow = data.context_window ?? deps.providers.contextWindow(providerName, model);
    const summaryModel = data.summarize_model ?? model;
    // The summarising model reads at most half its window of the result; the rest is its answer and headroom.
    const summarize = data.summarize_results
      ? {
          model: summaryModel,
          inputTokens: Math.floor(
            (data.summarize_model === undefined
              ? contextWindow
              : deps.providers.contextWindow(providerName, summaryModel)) / 2,
          ),
        }
      : undefined;
    const limit = resultLimit(data, deps, run.runId, node.id, summarize);
    const semantic = await semanticSearchFor(data.tool_selection, tools, {
      nodeId: node.id,
      nodeProvider: providerName,
      run,
      deps,
    });
    const callable = limit === undefined ? tools : [...tools, limit.reader];
    const { meter } = run;
    try {
      const result = await runAgentLoop<ToolRunOutcome>({
        provider,
        model,
        costOf: (usage, calledModel) => deps.prices?.costOf(providerName, calledModel, usage) ?? null,
        messages,
        tools,
        executeTool: (call, history, signal) => {
          const recorded = run.models?.recordedToolResult?.(node.id, call);
          if (recorded)
            return replayedCall(call, recorded, (status) =>
              deps.registry.recordUnrunCall({
                call,
                tools,
                nodeId: node.id,
                status,
                response: recorded.content,
                context: { ...toolContext, signal },
              }),
            );
          return deps.registry.runCall({
            call,
            tools: callable,
            nodeId: node.id,
            messages: history,
            context: { ...toolContext, signal },
          });
        },
        // A call over the run's tool call budget does not start: the run ends (its signal aborts the loop).
        startToolCall: meter && (() => meter.startToolCall()),
        approvals: approvalGateFor({ node, step, run, services: deps }, callable),
        resume: step?.state as AgentLoopCheckpoint | undefined,
        // The checkpoint a round's calls wait for also waits for the earlier rounds' call logs: a crash after
        // a later call started must not lose the log of a call that finished before it.
        onCheckpoint: step && (async (state) => void (await Promise.all([step.save(state), callLogsStored]))),
        onUnrunCall: (call, status, response) =>
          deps.registry.recordUnrunCall({
            call,
            tools,
            nodeId: node.id,
            status,
            response,
            context: { ...toolContext, signal: run.signal },
          }),
        maxIterations: data.max_iterations,
        toolChoice: tools.length > 0 ? data.tool_choice : undefined,
        parallelToolCalls: tools.length > 0 ? data.parallel_tool_calls : undefined,
        temperature: data.temperature,
        maxTokens: data.max_tokens,
        reasoningEffort: data.reasoning_effort,
        ...(data.output_schema === undefined
          ? {}
          : {
              responseFormat: responseFormatFor(node.id, data.output_schema),
              answerCheck: outputSchemaCheck(data.output_schema, data.output_retries ?? DEFAULT_OUTPUT_RETRIES),
            }),
        onMaxIterations: data.on_max_iterations,
        maxToolCalls: data.max_tool_calls,
        maxTotalTokens: data.max_total_tokens,
        runTokens: meter && {
          left: () => meter.tokensLeft(),
          refuse: (promptTokens, addedOutputTokens) => meter.refuseModelCall(promptTokens, addedOutputTokens),
        },
        toolResults: limit?.limit,
        toolSelection: toolSelectionFor(data.tool_selection, tools, semantic, deps.toolUsage?.of(run.principal.userId)),
        contextWindow,
        timeoutMs,
        signal: run.signal,
        hooks: {
          onText: (delta) => emit('llm.delta', { node_id: node.id, delta }),
          onReasoning: (delta) => emit('llm.reasoning', { node_id: node.id, delta }),
          onToolCall: ({ id, name, index }) => emit('tool.call', { node_id: node.id, call_id: id, name, index }),
          onToolParam: ({ id, name, argsDelta }) => {
            const delta = redactedDelta(id, argsDelta);
            if (delta !== '') emit('tool.args.delta', { node_id: node.id, call_id: id, name, delta });
          },
          onAfterToolCall: (outcome) =>
            emit('tool.result', {
              node_id: node.id,
              call_id: outcome.call.id,
              name: outcome.toolName,
              status: outcome.status,
              duration_ms: outcome.metadata.duration_ms,
              response: outcome.response.slice(0, PREVIEW_CHARS),
              ...(outcome.metadata.repaired_arguments === true ? { repaired: true } : {}),
            }),
          onToolCallStopped: ({ call, reason, durationMs }) =>
            emit('tool.result', {
              node_id: node.id,
              call_id: call.id,
              name: call.name,
              status: 'cancelled',
              duration_ms: durationMs,
              response: stoppedCallResponse(call.name, reason).slice(0, PREVIEW_CHARS),
            }),
          onModelCall: ({ iteration, usage, tools: offered, cost = null }) => {
            emit('llm.usage', {
              node_id: node.id,
              iteration,
              usage: {
                prompt_tokens: usage.promptTokens,
                completion_tokens: usage.completionTokens,
                total_tokens: usage.totalTokens,
                ...(usage.cachedPromptTokens !== undefined && { cached_prompt_tokens: usage.cachedPromptTokens }),
                ...(usage.reasoningTokens !== undefined && { reasoning_tokens: usage.reasoningTokens }),
              },
              cost,
            });
            // A model answer closes the previous step: its calls' logs are written while the answer is checkpointed.
            callLogsStored = deps.registry.flushRunInBackground(run.runId);
            offeredTools.push(offered);
            emit('llm.call', {
              node_id: node.id,
              iteration,
              offered_tools: offered,
              prompt_tokens: usage.promptTokens,
              completion_tokens: usage.completionTokens,
            });
            // Last: reaching the run's token budget aborts the run, after this call's events are out.
            run.meter?.addModelCall(usage, 1, cost);
          },
          onSummaryUsage: (usage, cost = null) => run.meter?.addModelCall(usage, 0, cost),
          onRetry: ({ attempt, delayMs, reason }) =>
            emit('llm.retry', { node_id: node.id, attempt, delay_ms: delayMs, reason }),
          onAnswerRetry: ({ attempt, problems }) =>
            emit('llm.output_retry', { node_id: node.id, attempt, errors: problems }),
          onContextTrimmed: (trim) =>
            emit('llm.context_trimmed', {
              node_id: node.id,
              iteration: trim.iteration,
              context_window: trim.contextWindow,
              reserved_tokens: trim.reservedTokens,
              tokens_before: trim.tokensBefore,
              tokens_after: trim.tokensAfter,
              shortened_results: trim.shortenedResults,
              dropped_messages: trim.droppedMessages,
            }),
        },
      });
      if (result.stopReason === 'timeout') {
        const limit = data.timeout_ms === undefined ? 'LLM_NODE_TIMEOUT_MS' : 'timeout_ms';
        const message = `the LLM node ran out of time: its limit of ${timeoutMs} ms (${limit}) passed`;
        throw new NodeFailure(message, nodeOutput(result));
      }
      const output = { ...nodeOutput(result), offered_tools: offeredTools };
      if (data.output_schema === undefined) return output;
      const answer = readStructuredAnswer(result.output, data.output_schema);
      if (!answer.ok) {
        const retries = `${result.answerRetries} ${result.answerRetries === 1 ? 'retry' : 'retries'}`;
        const message = `the answer does not match output_schema after ${retries}: ${answer.errors.join('; ')}`;
        throw new NodeFailure(message, { ...output, output_errors: answer.errors });
      }
      // A repaired answer says so in the output: `text` keeps what the model wrote, `data` what was read from it.
      return { ...output, data: answer.data, output_repaired: answer.repaired ?? null };
    } catch (error) {
      if (error instanceof AgentLoopError) {
        throw new NodeFailure(error.message, nodeOutput(error.result), { cause: error });
      }
      throw error;
    }
  },
};
