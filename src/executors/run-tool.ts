import type { ChatMessage } from '../shared/chat-types';
import {
  type ArgumentError,
  type ArgumentValidator,
  formatArgumentErrors,
  ParametersSchemaError,
  parseToolArguments,
} from './arguments';
import { type ToolDefinition, type ToolExecuteResult, type ToolRunContext, toolName } from '../shared/tool-definition';
import type { ToolCallOutcome } from '../shared/tool-call-outcome';
import { ToolExecutionError, ToolForbiddenError, ToolTimeoutError } from '../shared/tool-errors';
import { type ToolCall } from '../shared/tool-types';
import { errorMessage } from '../shared/error-text';
import { jsonHash } from '../shared/json-hash';
import { closestMatch } from '../json-schema/edit-distance';
import { Deadline } from '../common/deadline';

export type { ToolCallOutcome, ToolErrorKind } from '../shared/tool-call-outcome';

export interface ToolRunHooks {
  onToolCall?(call: ToolCall): void | Promise<void>;
  /** Fires exactly once per call, whatever the outcome. */
  onAfterToolCall?(outcome: ToolCallOutcome): void | Promise<void>;
}

export interface ToolRunLogger {
  warn(message: string, error?: unknown): void;
}

export interface RunToolOptions {
  call: ToolCall;
  tools: readonly ToolDefinition[];
  context: ToolRunContext;
  /** Conversation snapshot handed to the tool; empty outside an LLM node. */
  messages?: readonly ChatMessage[];
  hooks?: ToolRunHooks;
  validator: ArgumentValidator;
  /** Used when the tool has no `timeoutMs` of its own. */
  defaultTimeoutMs: number;
  /** Receives failures of hooks, which never affect the outcome. */
  logger?: ToolRunLogger;
}

type PartialOutcome = Omit<ToolCallOutcome, 'call' | 'startedAt' | 'finishedAt' | 'metadata' | 'toolName'> & {
  metadata?: Record<string, unknown>;
};

/**
 * Runs one tool call: find by name → parse and repair the arguments → validate against the
 * tool's JSON Schema → optional `parseParams` → execute with a timeout and an AbortSignal linked
 * to `context.signal`. Every failure becomes a `response` the model can act on; never throws.
 */
export async function runTool(options: RunToolOptions): Promise<ToolCallOutcome> {
  const { call, hooks, logger } = options;
  const startedAt = new Date();
  await callHook(() => hooks?.onToolCall?.(call), 'onToolCall', logger);

  const repair: Record<string, unknown> = {};
  let partial: PartialOutcome;
  try {
    partial = await runSteps(options, repair);
  } catch (error) {
    partial = executionFailure(error);
  }
  const finishedAt = new Date();
  const repairMark = call.repair ?? (repair.repaired_arguments === true ? { kind: 'arguments' as const } : undefined);
  const outcome: ToolCallOutcome = {
    ...partial,
    call,
    toolName: call.name,
    ...(repairMark !== undefined && { repair: repairMark }),
    metadata: { ...partial.metadata, ...repair, duration_ms: finishedAt.getTime() - startedAt.getTime() },
    startedAt,
    finishedAt,
  };
  await callHook(() => hooks?.onAfterToolCall?.(outcome), 'onAfterToolCall', logger);
  return outcome;
}

async function runSteps(options: RunToolOptions, repair: Record<string, unknown>): Promise<PartialOutcome> {
  const { call, tools, context, validator } = options;
  const tool = tools.find((candidate) => toolName(candidate) === call.name);
  if (!tool) return notFound(call.name, tools);
  if (context.signal.aborted) return cancelled(call.name, context.signal.reason);

  const checked = checkCallArguments(call, tool, validator);
  if (!checked.ok) return checked.failure;
  if (checked.repairNote !== undefined) {
    repair.repaired_arguments = true;
    repair.repair_note = checked.repairNote;
  }

  let params = checked.value;
  if (tool.parseParams) {
    const result = tool.parseParams(params);
    if (!result.success) return invalidArguments(`Invalid arguments for tool "${call.name}": ${result.errorMessage}`);
    params = result.data;
  }
  return { ...(await execute(tool, params, options)), params };
}

export type CheckedArguments =
  { ok: true; value: Record<string, unknown>; repairNote?: string } | { ok: false; failure: PartialOutcome };

/** The arguments of a call parsed (and repaired) and valid against its tool's JSON Schema, or the failure the model gets. */
export function checkCallArguments(
  call: ToolCall,
  tool: ToolDefinition,
  validator: ArgumentValidator,
): CheckedArguments {
  const schema = tool.schema.function.parameters;
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok) {
    const errors: ArgumentError[] = [
      { path: '', message: parsed.message, value: call.arguments, rule: 'json', expected: 'a JSON object' },
    ];
    return { ok: false, failure: invalidArguments(formatArgumentErrors(call.name, errors, schema), errors) };
  }
  let validation;
  try {
    validation = validator.validate(validatorKey(tool), schema, parsed.value);
  } catch (error) {
    if (!(error instanceof ParametersSchemaError)) throw error;
    const response = `Error: tool ${call.name} has an ${error.message}`;
    return { ok: false, failure: { status: 'error', errorKind: 'execution_error', response } };
  }
  if (!validation.ok) {
    const failure = invalidArguments(formatArgumentErrors(call.name, validation.errors, schema), validation.errors);
    return { ok: false, failure };
  }
  return parsed.repaired
    ? { ok: true, value: parsed.value, repairNote: parsed.repairNote }
    : { ok: true, value: parsed.value };
}

async function execute(
  tool: ToolDefinition,
  params: Record<string, unknown>,
  options: RunToolOptions,
): Promise<PartialOutcome> {
  const { call, context } = options;
  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  const deadline = new Deadline({ parent: context.signal, timeoutMs });
  let settle: (() => void) | undefined;
  const stopped = new Promise<PartialOutcome>((resolve) => {
    settle = (): void =>
      resolve(
        deadline.cause === 'timeout'
          ? { status: 'timeout', errorKind: 'timeout', response: `Tool ${call.name} timed out after ${timeoutMs} ms` }
          : cancelled(call.name, context.signal.reason),
      );
    if (deadline.signal.aborted) settle();
    else deadline.signal.addEventListener('abort', settle, { once: true });
  });

  const running = Promise.resolve()
    .then(() => tool.execute({ call, params, messages: options.messages ?? [], run: context, signal: deadline.signal }))
    .then(success, executionFailure);
  try {
    return await Promise.race([running, stopped]);
  } finally {
    if (settle) deadline.signal.removeEventListener('abort', settle);
    deadline.dispose();
  }
}

function success(result: ToolExecuteResult): PartialOutcome {
  return {
    status: 'success',
    response: result.response,
    data: result.data,
    metadata: result.metadata,
    usage: result.usage,
    stop: result.stop,
  };
}

function executionFailure(error: unknown): PartialOutcome {
  if (error instanceof ToolExecutionError) {
    const timedOut = error instanceof ToolTimeoutError;
    return {
      status: timedOut ? 'timeout' : 'error',
      errorKind: timedOut ? 'timeout' : error instanceof ToolForbiddenError ? 'forbidden' : 'execution_error',
      response: `Error: ${error.message}`,
      data: error.details.data,
      metadata: {
        ...error.details.metadata,
        ...(error.details.statusCode ? { status_code: error.details.statusCode } : {}),
      },
    };
  }
  return {
    status: 'error',
    errorKind: 'execution_error',
    response: `Error: ${errorMessage(error, { descriptive: true })}`,
  };
}

/** Past this many tools the list of names would crowd the context; the suggestion still covers all. */
const LISTED_TOOLS = 20;

function notFound(name: string, tools: readonly ToolDefinition[]): PartialOutcome {
  const names = tools.map((tool) => toolName(tool));
  const closest = closestMatch(name, names, Math.max(2, Math.floor(name.length / 3)));
  const listed = names.slice(0, LISTED_TOOLS).join(', ') || 'none';
  const more = names.length > LISTED_TOOLS ? ` and ${names.length - LISTED_TOOLS} more` : '';
  const suggestion = closest === undefined ? '' : ` Did you mean "${closest}"?`;
  return {
    status: 'not_found',
    errorKind: 'not_found',
    response: `Error: there is no tool named "${name}".${suggestion} Available tools: ${listed}${more}.`,
  };
}

/** A call the run's stop cut off. */
function cancelled(name: string, reason: unknown): PartialOutcome {
  return { status: 'cancelled', response: stoppedCallResponse(name, reason) };
}

/** What a call the run's stop cut off answers: why, when the stop says it (the run's time limit or another budget, a cancel). */
export function stoppedCallResponse(name: string, reason: unknown): string {
  // A bare abort() says nothing more than "cancelled".
  const said = reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '';
  return `Tool ${name} was cancelled before it finished${said ? `: ${reason.message}` : ''}`;
}

function invalidArguments(response: string, errors?: ArgumentError[]): PartialOutcome {
  return { status: 'invalid_arguments', errorKind: 'invalid_arguments', response, errors };
}

async function callHook(invoke: () => unknown, name: string, logger: ToolRunLogger | undefined): Promise<void> {
  try {
    await invoke();
  } catch (error) {
    logger?.warn(`tool run hook ${name} failed`, error);
  }
}

/** `id@version` for stored tools; otherwise the name plus a hash of the schema, so edits recompile. */
export function validatorKey(tool: ToolDefinition): string {
  if (tool.id !== undefined && tool.version !== undefined) return `${tool.id}@${tool.version}`;
  return `${toolName(tool)}#${jsonHash(tool.schema.function.parameters)}`;
}
