import type { ChatMessage } from '../shared/chat-types';
import type { FunctionTool, ToolEffect } from '../shared/tool-types';
import { secretArgumentNames } from '../shared/argument-secrets';
import type { AgentLoopOptions, LoopToolOutcome } from './agent-loop-options';
import { CUT_NOTE_START } from './cut-tool-result';
import { isRepeatable, type LoopRound, type ResumeAction, resumeActions, type RoundCall } from './loop-checkpoint';
import { READ_TOOL_RESULT, readToolResultSchema } from './read-tool-result';
import { SEARCH_TOOLS, searchToolsSchema, type ToolSelection } from './selection/tool-selection';

/** The tools of one loop: their schemas, effects (which decide parallelism and resumes) and what each request offers. */
export class LoopTools<O extends LoopToolOutcome> {
  readonly schemas: FunctionTool[];
  /** The argument names the tools' schemas declare secret: masked in checkpoints like credential names. */
  readonly secretArguments: ReadonlySet<string>;
  /** The node's tool selection, when it has more tools than the selection's `maxTools`. */
  readonly selection: ToolSelection | undefined;
  private readonly effects: Map<string, ToolEffect>;

  constructor(private readonly options: AgentLoopOptions<O>) {
    this.schemas = options.tools.map((tool) => tool.schema);
    this.secretArguments = secretArgumentNames(...this.schemas.map((schema) => schema.function.parameters));
    this.effects = new Map(options.tools.map((tool) => [tool.schema.function.name, tool.effect]));
    if (options.toolResults) this.effects.set(READ_TOOL_RESULT, 'read_only');
    const selection = options.toolSelection;
    this.selection = selection !== undefined && this.schemas.length > selection.maxTools ? selection : undefined;
    if (this.selection) this.effects.set(SEARCH_TOOLS, 'read_only');
  }

  /** Consecutive `read_only` calls run at the same time; a call the loop answers itself runs alone. */
  isConcurrent(item: RoundCall): boolean {
    return item.skipResponse === undefined && this.effects.get(item.call.name) === 'read_only';
  }

  /** Whether the call's tool may run twice without harm (`read_only`, `idempotent`). */
  isRepeatable(item: RoundCall): boolean {
    return isRepeatable(this.effects.get(item.call.name));
  }

  /** What a loop resumed from a checkpoint of this round would do with each of its calls. */
  resumeActionsOf(round: LoopRound): ResumeAction[] {
    return resumeActions(
      round,
      (name) => this.effects.get(name),
      (item) => this.isConcurrent(item),
    );
  }

  /**
   * The node's tools (or, with more than `maxTools`, the ones selected for this call plus search_tools), plus
   * read_tool_result once a result was cut. Everything is read from the history, so it survives a resume;
   * `forcing`: the loop still forces `toolChoice` (a forced tool is always offered).
   */
  offered(messages: readonly ChatMessage[], forcing: boolean): FunctionTool[] {
    const { schemas, selection, options } = this;
    const offersReader =
      options.toolResults !== undefined &&
      !schemas.some((schema) => schema.function.name === READ_TOOL_RESULT) &&
      messages.some((message) => message.role === 'tool' && message.content.includes(CUT_NOTE_START));
    const reader = offersReader ? [readToolResultSchema] : [];
    if (!selection) return [...schemas, ...reader];
    const { toolChoice } = options;
    const pinned = typeof toolChoice === 'object' && forcing ? [toolChoice.name] : [];
    const names = schemas.map((schema) => schema.function.name);
    const picked = new Set(selection.pick(messages, names, pinned));
    return [...schemas.filter((schema) => picked.has(schema.function.name)), searchToolsSchema, ...reader];
  }
}
