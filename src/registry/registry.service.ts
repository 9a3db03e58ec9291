import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../common/auth/principal';
import { isAdmin } from '../common/auth/principal';
import type { ToolCallStatus } from '../shared/tool-call-status';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { inSpan, markSpanFailed } from '../common/tracing';
import type { ChatMessage } from '../shared/chat-types';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { DeferredCallLogs, useCounts } from '../call-logs/deferred-call-logs';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import { ToolsService } from '../tools/tools.service';
import { ToolVersionsService } from '../tools/tool-versions.service';
import type { ToolPin, ToolPins } from '../tools/stored-tool';
import { ArgumentValidator } from './arguments';
import type { UnusableTool } from '../executors/executor';
import type { ExecutorCatalog } from '../executors/executor-catalog';
import { EXECUTOR_CATALOG } from '../executors/executors.tokens';
import { checkCallArguments, runTool, type ToolRunHooks, type ToolRunOutcome } from './run-tool';
import { type ToolDefinition, type ToolRunContext, toolName } from '../shared/tool-definition';
import type { JsonSchema, ToolCall } from '../shared/tool-types';
import type { ExecuteToolResponse } from './execute-tool.dto';
import type { Page, PageQuery } from '../common/http/pagination';
import type { ToolCallLogResponse } from '../call-logs/tool-call-log.dto';
import { unloggedCalls } from '../call-logs/unlogged-calls';
import { toCallRecord, type ToolCallRecord } from '../call-logs/call-record';

export interface ResolvedTools {
  definitions: ToolDefinition[];
  /** Names that do not exist or that the principal may not use. */
  missing: string[];
  disabled: string[];
  /** Enabled tools that cannot do their job now (e.g. the workflow a workflow tool runs is disabled); when asked. */
  unusable: Array<UnusableTool & { name: string }>;
}

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

const pinKey = (pin: { id: string; version: number }) => `${pin.id}@${pin.version}`;

const pinOf = (pins: ToolPins, name: string): Array<[string, ToolPin]> =>
  Object.hasOwn(pins, name) ? [[name, pins[name]]] : [];

const stringify = (value: unknown): string => {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
};

/**
 * Turns stored tools into executable definitions and runs calls with logging and use counts. A call of a
 * run is logged off the model's critical path (see DeferredCallLogs: `flushRunInBackground` after a step,
 * `flushRun` before the run ends); a call outside a run is logged before its answer.
 */
@Injectable()
export class RegistryService implements OnApplicationShutdown {
  private readonly logger = new Logger(RegistryService.name);
  private readonly validator = new ArgumentValidator({ cacheSize: 1000 });
  private readonly deferred: DeferredCallLogs;

  constructor(
    private readonly tools: ToolsService,
    private readonly versions: ToolVersionsService,
    private readonly logs: ToolCallLogsService,
    @Inject(EXECUTOR_CATALOG) private readonly executors: ExecutorCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.deferred = new DeferredCallLogs(
      (records, useCounts) => this.writeLogs(records, useCounts),
      (error, runId) => this.logger.warn({ err: error, runId }, 'tool call logs not stored yet; retrying at run end'),
    );
  }

  /** Stores every call of the run made so far (log rows and use counts); await it before the run is ended. */
  flushRun(runId: string): Promise<void> {
    return this.deferred.flushRun(runId);
  }

  /**
   * Starts storing the calls of the run made so far, at the end of one of its steps, and returns at once; the
   * promise settles (never rejects) when they are stored or the write failed (they are retried later).
   */
  flushRunInBackground(runId: string): Promise<void> {
    return this.deferred.flushInBackground(runId);
  }

  /**
   * Writes the log rows and use counts of the calls among `calls` (a resumed run's answered calls, in the order
   * they were made) that have no row: a process that died had not written them yet. Calls with a row are left
   * alone, so that asking again writes nothing twice. Returns the calls it wrote.
   */
  async logUnloggedCalls(runId: string, calls: readonly ToolCallRecord[]): Promise<ToolCallRecord[]> {
    if (calls.length === 0) return [];
    const missing = unloggedCalls(calls, await this.logs.loggedCallsOf(runId));
    if (missing.length > 0) await this.writeLogs(missing, useCounts(missing));
    return missing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.deferred.flushAll();
  }

  /** Definitions for the named tools, in the order asked; reports names that are missing or disabled. */
  async resolve(
    names: readonly string[],
    principal: Principal,
    options: { checkUsable?: boolean } = {},
  ): Promise<ResolvedTools> {
    const unique = [...new Set(names)];
    const stored = await this.tools.findUsableByNames(unique, principal);
    const byName = new Map(stored.map((tool) => [tool.name, tool]));
    const result: ResolvedTools = { definitions: [], missing: [], disabled: [], unusable: [] };
    const caller = { userId: principal.userId, isAdmin: isAdmin(principal) };
    for (const name of unique) {
      const tool = byName.get(name);
      if (!tool) result.missing.push(name);
      else if (!tool.enabled) result.disabled.push(name);
      else {
        result.definitions.push(await this.executors.toDefinition(tool));
        const unusable = options.checkUsable ? await this.executors.unusableReason(tool, caller) : null;
        if (unusable) result.unusable.push({ name, ...unusable });
      }
    }
    return result;
  }

  /**
   * `named` followed by what selectors add (each a category, or null for every usable tool), by name within
   * each selector, every tool once: an LLM node's tools list as it resolves now.
   */
  async expandSelectors(
    named: readonly ToolDefinition[],
    selectors: readonly (string | null)[],
    principal: Principal,
  ): Promise<ToolDefinition[]> {
    const definitions = [...named];
    const seen = new Set(named.map(toolName));
    for (const category of new Set(selectors)) {
      for (const tool of await this.tools.findUsable(category, principal)) {
        if (seen.has(tool.name)) continue;
        seen.add(tool.name);
        definitions.push(await this.executors.toDefinition(tool));
      }
    }
    return definitions;
  }

  /**
   * The same lists from the versions a run pinned at its start, whatever changed since: the named tools in the
   * order asked (a name without a pin, or whose tool was deleted, is missing), then the pins each selector matches.
   */
  async resolvePinned(
    names: readonly string[],
    selectors: readonly (string | null)[],
    pins: ToolPins,
  ): Promise<ResolvedTools> {
    const unique = [...new Set(names)];
    const wanted = selectors.length > 0 ? Object.entries(pins) : unique.flatMap((name) => pinOf(pins, name));
    const pinned = await this.versions.findPinned(wanted.map(([, pin]) => pin));
    const byPin = new Map(pinned.map((entry) => [pinKey(entry.tool), entry]));
    const result: ResolvedTools = { definitions: [], missing: [], disabled: [], unusable: [] };
    const seen = new Set<string>();
    for (const name of unique) {
      const entry = pinOf(pins, name).map(([, pin]) => byPin.get(pinKey(pin)))[0];
      if (!entry) result.missing.push(name);
      else result.definitions.push(await this.executors.toDefinition(entry.tool));
      seen.add(name);
    }
    const byName = wanted.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const category of new Set(selectors)) {
      for (const [name, pin] of byName) {
        const entry = byPin.get(pinKey(pin));
        if (seen.has(name) || !entry || (category !== null && entry.category !== category)) continue;
        seen.add(name);
        result.definitions.push(await this.executors.toDefinition(entry.tool));
      }
    }
    return result;
  }

  /** Runs one call through runTool, then writes its log row and bumps the tool's use count. */
  runCall(options: RunCallOptions): Promise<ToolRunOutcome> {
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

  private async runAndLog(options: RunCallOptions): Promise<ToolRunOutcome> {
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
    await this.store(
      recordOf(
        { ...options, call },
        {
          output: outcome.status === 'success' ? outcome.response : null,
          status: outcome.status,
          errorMessage: outcome.status === 'success' ? null : outcome.response,
          durationMs: outcome.metadata.duration_ms,
          startedAt: outcome.startedAt,
        },
      ),
    );
    return outcome;
  }

  /** A call outside a run is stored at once; a run's calls are stored per step (see DeferredCallLogs). */
  private async store(record: ToolCallRecord): Promise<void> {
    if (record.runId === null) {
      await this.logs.record(record);
      if (record.toolId) await this.tools.incrementUseCount(record.toolId);
    } else {
      this.logs.announce(record);
      this.deferred.add(record.runId, record);
    }
  }

  private async writeLogs(records: ToolCallRecord[], useCounts: ReadonlyMap<string, number>): Promise<void> {
    const budgetMs = this.config.runDbRetryMs;
    await this.logs.insert(records, { retryBudgetMs: budgetMs });
    for (const [toolId, count] of useCounts) {
      await retryDatabaseWrite(() => this.tools.incrementUseCount(toolId, count), { budgetMs });
    }
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
  async recordUnrunCall(
    options: CallOf & {
      status: ToolCallStatus;
      response: string;
    },
  ): Promise<void> {
    await this.store(
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

  /** The debug endpoint: one call outside any workflow. */
  async executeOnce(idOrName: string, rawArguments: unknown, principal: Principal): Promise<ExecuteToolResponse> {
    const tool = await this.tools.findVisible(idOrName, principal);
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

  /** Executions of a visible tool, newest first: its owner and admins see every caller, others their own calls. */
  async logsOf(idOrName: string, principal: Principal, query: PageQuery): Promise<Page<ToolCallLogResponse>> {
    const tool = await this.tools.findVisible(idOrName, principal);
    const owner = isAdmin(principal) || tool.userId === principal.userId;
    return this.logs.listForTool(tool.id, owner ? null : principal.userId, query.page, query.page_size);
  }
}

export function toExecuteResponse(outcome: ToolRunOutcome): ExecuteToolResponse {
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
