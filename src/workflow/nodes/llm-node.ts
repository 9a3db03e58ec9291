import { type Static, Type } from '@sinclair/typebox';
import { isAdmin } from '../../common/auth/principal';
import { enumOf } from '../../json-schema/schema-helpers';
import type { ChatMessage } from '../../shared/chat-types';
import type { ToolCallStatus } from '../../shared/tool-call-status';
import type { ToolCall } from '../../shared/tool-types';
import { secretArgumentNames } from '../../shared/argument-secrets';
import { MIN_CONTEXT_WINDOW } from '../../config/provider-config';
import { REASONING_EFFORTS } from '../../llm/provider';
import type { ToolCallOutcome } from '../../executors/run-tool';
import { type AgentLoopCheckpoint, AgentLoopError, type AgentLoopResult, runAgentLoop } from '../../agent/agent-loop';
import { answeredCallsOfCheckpoint, answeredCallsOfRecords } from './answered-calls';
import type { AgentToolCallRecord } from '../../agent/agent-loop-result';
import { renderText, resolveReferences } from '../references';
import { NodeFailure } from '../execution/run-context';
import type { DataProblem, NodeCheckContext, NodeHandler } from './node-handler';
import { historyMessages } from './history-messages';
import { namedTools, selects, ToolEntry, ToolSelectionData, toolSelectionFor, toolSelectors } from './llm-node-tools';
import { toolsOfNode } from './node-tools';
import { referenceText } from './reference-text';
import { llmNodeOutput, llmNodeOutputShape } from './llm-node-output';
import { approvalGateFor } from './node-approvals';
import { checkEmbeddings, semanticSearchFor } from './llm-node-embeddings';
import { llmNodeEvents } from './llm-node-events';
import { resultLimit, summarizing } from './llm-node-tool-results';
import {
  checkOutputSchema,
  DEFAULT_OUTPUT_RETRIES,
  outputSchemaCheck,
  readStructuredAnswer,
  responseFormatFor,
  structuredOutputFields,
} from './llm-node-structured-output';

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
      unconfigured: true,
    });
    return problems;
  }
  try {
    providers.resolveModel(provider, data.model);
  } catch (error) {
    problems.push({ field: 'model', message: (error as Error).message, unconfigured: true });
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
): Promise<ToolCallOutcome> {
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

/** The messages of the node's first model call: its system prompt, the earlier turns, and its prompt. */
function promptMessages(data: LlmNodeData, scope: Record<string, unknown>): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const system = data.system ? renderText(data.system, scope) : '';
  if (system) messages.push({ role: 'system', content: system });
  messages.push(...historyMessages(resolveReferences(data.messages, scope)));
  messages.push({ role: 'user', content: renderText(data.prompt, scope) });
  return messages;
}

/**
 * The node's output from the loop's result: a loop out of time fails the node; with an output_schema, the answer
 * read as `data` (or the node fails naming what does not match).
 */
function nodeResult(
  result: AgentLoopResult,
  data: LlmNodeData,
  timeoutMs: number,
  loopOutput: Record<string, unknown>,
  offeredTools: string[][],
): Record<string, unknown> {
  if (result.stopReason === 'timeout') {
    const limit = data.timeout_ms === undefined ? 'LLM_NODE_TIMEOUT_MS' : 'timeout_ms';
    const message = `the LLM node ran out of time: its limit of ${timeoutMs} ms (${limit}) passed`;
    throw new NodeFailure(message, loopOutput);
  }
  const output = { ...loopOutput, offered_tools: offeredTools };
  if (data.output_schema === undefined) return output;
  const answer = readStructuredAnswer(result.output, data.output_schema);
  if (!answer.ok) {
    const retries = `${result.answerRetries} ${result.answerRetries === 1 ? 'retry' : 'retries'}`;
    const message = `the answer does not match output_schema after ${retries}: ${answer.errors.join('; ')}`;
    throw new NodeFailure(message, { ...output, output_errors: answer.errors });
  }
  // A repaired answer says so in the output: `text` keeps what the model wrote, `data` what was read from it.
  return { ...output, data: answer.data, output_repaired: answer.repaired ?? null };
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
    const provider = run.models?.provider(node.id, configured, run.item) ?? configured;
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
    const messages = promptMessages(data, scope);
    const timeoutMs = data.timeout_ms ?? deps.defaultTimeoutMs;
    const toolContext = {
      runId: run.runId,
      userId: run.principal.userId,
      isAdmin: isAdmin(run.principal),
      depth: run.depth,
    };
    const contextWindow = data.context_window ?? deps.providers.contextWindow(providerName, model);
    const summarize = summarizing(data, deps, providerName, model, contextWindow);
    const limit = resultLimit(data, deps, run.runId, node.id, summarize);
    const semantic = await semanticSearchFor(data.tool_selection, tools, {
      nodeId: node.id,
      nodeProvider: providerName,
      run,
      deps,
    });
    // Read before the loop (from a store at most once per few seconds): ranking never waits for it.
    const evidence = selects(data.tool_selection, tools) ? await deps.toolUsage?.of(run.principal.userId) : undefined;
    const callable = limit === undefined ? tools : [...tools, limit.reader];
    const { meter } = run;
    try {
      const result = await runAgentLoop<ToolCallOutcome>({
        provider,
        model,
        costOf: (usage, calledModel) => deps.prices?.costOf(providerName, calledModel, usage) ?? null,
        messages,
        tools,
        executeTool: (call, history, signal) => {
          const recorded = run.models?.recordedToolResult?.(node.id, call, run.item);
          if (recorded)
            return replayedCall(call, recorded, (status) =>
              deps.toolCalls.recordUnrunCall({
                call,
                tools,
                nodeId: node.id,
                status,
                response: recorded.content,
                context: { ...toolContext, signal },
              }),
            );
          return deps.toolCalls.runCall({
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
          deps.toolCalls.recordUnrunCall({
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
        toolSelection: toolSelectionFor(data.tool_selection, tools, semantic, evidence),
        contextWindow,
        timeoutMs,
        signal: run.signal,
        hooks: llmNodeEvents({
          nodeId: node.id,
          emit: run.emit.bind(run),
          secretArguments,
          meter,
          onModelAnswer: (offered) => {
            // A model answer closes the previous step: its calls' logs are written while the answer is checkpointed.
            callLogsStored = deps.callLogs.flushRunInBackground(run.runId);
            offeredTools.push(offered);
          },
        }),
      });
      return nodeResult(result, data, timeoutMs, nodeOutput(result), offeredTools);
    } catch (error) {
      if (error instanceof AgentLoopError) {
        throw new NodeFailure(error.message, nodeOutput(error.result), { cause: error });
      }
      throw error;
    }
  },
};
