import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { isAdmin, type Principal } from '../common/auth/principal';
import { inSpan, markSpanFailed } from '../common/tracing';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CallLogWriter } from '../call-logs/call-log-writer.service';
import { toCallRecord, type ToolCallRecord } from '../call-logs/call-record';
import type { ChatMessage } from '../shared/chat-types';
import type { ToolCallStatus } from '../shared/tool-call-status';
import { type ToolDefinition, type ToolRunContext, toolName } from '../shared/tool-definition';
import type { JsonSchema, ToolCall } from '../shared/tool-types';
import type { StoredTool } from '../tools/stored-tool';
import { ArgumentValidator } from './arguments';
import type { ExecuteToolResponse } from './execute-tool.dto';
import type { ExecutorCatalog } from './executor-catalog';
import { EXECUTOR_CATALOG } from './executors.tokens';
import { checkCallArguments, runTool, type ToolRunHooks, type ToolCallOutcome } from './run-tool';

export interface RunCallOptions {
  call: ToolCall;
  tools: readonly ToolDefinition[];
  context: ToolRunContext;
  nodeId?: string | null;
  messages?: readonly ChatMessage[];
  hooks?: ToolRunHooks;
}

type CallOf = Pick<RunCallOptions, 'call' | 'tools' | 'nodeId' | 'context'>;

/** The log row of a call made through RunCallOptions. */
const recordOf = (
  { call, tools, nodeId, context }: CallOf,
  answered: Parameters<typeof toCallRecord>[2],
): ToolCallRecord => {
  const tool = tools.find((candidate) => toolName(candidate) === call.name);
  return toCallRecord(call, { tool, runId: context.runId, nodeId: nodeId ?? null, userId: context.userId }, answered);
};

const stringify = (value: unknown): string => {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
};

/**
 * Runs tool calls (through runTool, in a span) and hands each one's record to the CallLogWriter: the calls of
 * LLM and tool nodes, MCP clients and the debug endpoint all go through here.
 */
@Injectable()
export class ToolCalls {
  private readonly logger = new Logger(ToolCalls.name);
  private readonly validator = new ArgumentValidator({ cacheSize: 1000 });

  constructor(
    private readonly logs: CallLogWriter,
    @Inject(EXECUTOR_CATALOG) private readonly executors: ExecutorCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Runs one call through runTool, then logs it and bumps the tool's use count (see CallLogWriter). */
  runCall(options: RunCallOptions): Promise<ToolCallOutcome> {
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': options.call.name,
      'gen_ai.tool.call.id': options.call.id,
      'gen_ai.tool.type': 'function',
    };
    return inSpan(`execute_tool ${options.call.name}`, { attributes }, async (span) => {
      const outcome = await this.runAndLog(options);
      span.setAttribute('toolflow.tool.status', outcome.status);
      if (outcome.status !== 'success') {
        span.setAttribute('error.type', outcome.errorKind ?? outcome.status);
        markSpanFailed(span, outcome.response);
      }
      return outcome;
    });
  }

  private async runAndLog(options: RunCallOptions): Promise<ToolCallOutcome> {
    const outcome = await runTool({
      call: options.call,
      tools: options.tools,
      context: options.context,
      messages: options.messages,
      hooks: options.hooks,
      validator: this.validator,
      defaultTimeoutMs: this.config.tools.defaultTimeoutMs,
      logger: { warn: (message, error) => this.logger.warn({ err: error }, message) },
    });
    const call = outcome.repair === undefined ? options.call : { ...options.call, repair: outcome.repair };
    await this.logs.store(
      recordOf(
        { ...options, call },
        {
          output: outcome.status === 'success' ? outcome.response : null,
          status: outcome.status,
          errorMessage: outcome.status === 'success' ? null : outcome.response,
          durationMs: outcome.metadata.duration_ms,
          cpuMs: typeof outcome.metadata.cpu_ms === 'number' ? outcome.metadata.cpu_ms : null,
          startedAt: outcome.startedAt,
        },
      ),
    );
    return outcome;
  }

  /**
   * What a person is asked to approve for a call: its tool requires approval and its arguments are valid (a call
   * with invalid arguments fails without executing, so nobody needs to decide on it). Null otherwise.
   */
  approvalRequestFor(
    call: ToolCall,
    tools: readonly ToolDefinition[],
  ): { arguments: Record<string, unknown>; parameters: JsonSchema } | null {
    const tool = tools.find((candidate) => toolName(candidate) === call.name);
    if (tool?.requiresApproval !== true) return null;
    const checked = checkCallArguments(call, tool, this.validator);
    return checked.ok ? { arguments: checked.value, parameters: tool.schema.function.parameters } : null;
  }

  /** Logs a call that was answered without running (e.g. `unknown_outcome` after a crash), like an executed one. */
  async recordUnrunCall(options: CallOf & { status: ToolCallStatus; response: string }): Promise<void> {
    await this.logs.store(
      recordOf(options, {
        // A replay answers a call with its recorded result: a success's response is its output.
        output: options.status === 'success' ? options.response : null,
        status: options.status,
        errorMessage: options.status === 'success' ? null : options.response,
        durationMs: 0,
        startedAt: new Date(),
      }),
    );
  }

  /** The debug endpoint: one call of a tool the principal may see, outside any workflow. */
  async executeOnce(tool: StoredTool, rawArguments: unknown, principal: Principal): Promise<ExecuteToolResponse> {
    const call: ToolCall = {
      id: `debug_${randomUUID()}`,
      name: tool.name,
      arguments: typeof rawArguments === 'string' ? rawArguments : stringify(rawArguments ?? {}),
    };
    if (!tool.enabled) {
      return {
        success: false,
        data: null,
        error: `Tool "${tool.name}" is disabled; enable it to run it`,
        error_kind: 'forbidden',
        metadata: { duration_ms: 0 },
      };
    }
    const definition = await this.executors.toDefinition(tool);
    const controller = new AbortController();
    const outcome = await this.runCall({
      call,
      tools: [definition],
      context: {
        runId: null,
        userId: principal.userId,
        isAdmin: isAdmin(principal),
        signal: controller.signal,
        depth: 0,
      },
    });
    return toExecuteResponse(outcome);
  }
}

export function toExecuteResponse(outcome: ToolCallOutcome): ExecuteToolResponse {
  const success = outcome.status === 'success';
  const metadata = { ...outcome.metadata };
  return {
    success,
    data: success ? (outcome.data ?? outcome.response) : (outcome.data ?? null),
    error: success ? null : outcome.response,
    error_kind: success ? null : (outcome.errorKind ?? 'execution_error'),
    metadata,
    ...(outcome.errors ? { errors: outcome.errors.map(({ path, message, value }) => ({ path, message, value })) } : {}),
  };
}
