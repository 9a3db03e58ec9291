import type { ChatMessage } from '../../shared/chat-types';
import { SEARCH_TOOLS } from '../../shared/reserved-tool-names';
import type { FunctionTool } from '../../shared/tool-types';
import { DEFAULT_FUSION, fuseRankings, similarities, type Fusion, type RankedTool } from './semantic-ranking';
import { ToolIndex, type ToolDocument } from './tool-index';
import type { UsageEvidence } from './usage-evidence';

export { SEARCH_TOOLS };

/** Tools `search_tools` returns at most. */
export const SEARCH_RESULTS = 5;
const DESCRIPTION_CHARS = 200;
const KEPT_QUERY_VECTORS = 4;
/** How much of each recent tool result joins the query. */
const RESULT_QUERY_CHARS = 500;
/** What the owner's runs taught weighs this much against the lexical score (tuned on half A of the bench). */
export const LEARNED_WEIGHT = 0.5;

export const searchToolsSchema: FunctionTool = {
  type: 'function',
  function: {
    name: SEARCH_TOOLS,
    description:
      'Searches every tool available to this step, including ones not offered to you right now, and offers the ' +
      `best ${SEARCH_RESULTS} matches from your next turn on. Use it when none of your tools fits the task.`,
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 500,
          // Ranking is by shared words: a question in another language than the tools meets few of them.
          description: 'What the tool should do, in words, in the language of the tool descriptions',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
};

/** Embeddings of a node's tools, and how to embed a query; the selection combines them with the lexical score. */
export interface SemanticSearch {
  /** One unit vector per tool, in the order of the selection's tools. */
  vectors: readonly Float32Array[];
  /** The unit vector of a query (one embeddings request). */
  embed(text: string, signal?: AbortSignal): Promise<Float32Array>;
  /** Called once when embedding a query fails: the node ranks lexically from then on. */
  onFailure(error: unknown): void;
}

/**
 * What the loop needs to pick tools when a node has more than `maxTools`: a lexical index over all of them
 * (built once per set of tool versions, see toolIndexFor), and optionally their
 * embeddings; then `prepare` embeds each new query once before `pick` or `search` rank with it.
 */
export class ToolSelection {
  private readonly index: ToolIndex;
  private readonly descriptions: Map<string, string>;
  private readonly names: string[];
  private semantic: SemanticSearch | undefined;
  private readonly queryVectors = new Map<string, Float32Array>();
  /** Tools this selection offered or search_tools found: only calls of these teach the evidence. */
  private readonly offered = new Set<string>();
  private readonly learnedCalls = new Set<string>();
  /** The evidence's key of each tool name (a stored tool's id survives renames and versions), and back. */
  private readonly evidenceKeys: Map<string, string>;
  private readonly evidenceNames: Map<string, string>;

  constructor(
    readonly maxTools: number,
    readonly always: readonly string[],
    tools: readonly FunctionTool[],
    /** The tools' documents, or an index already built over them (in the order of `tools`). */
    documents: readonly ToolDocument[] | ToolIndex,
    semantic?: SemanticSearch,
    private readonly fusion: Fusion = DEFAULT_FUSION,
    /** The owner's evidence of which words led to which tool; it learns from this selection's calls too. */
    private readonly evidence?: UsageEvidence,
    /** The evidence's key of each tool, in the order of `tools`; default its name. */
    evidenceKeys?: readonly string[],
  ) {
    this.index = documents instanceof ToolIndex ? documents : new ToolIndex(documents);
    this.names = tools.map((tool) => tool.function.name);
    this.evidenceKeys = new Map(this.names.map((name, index) => [name, evidenceKeys?.[index] ?? name]));
    this.evidenceNames = new Map([...this.evidenceKeys].map(([name, key]) => [key, name]));
    this.descriptions = new Map(tools.map((tool) => [tool.function.name, tool.function.description ?? '']));
    this.semantic = semantic?.vectors.length === tools.length ? semantic : undefined;
  }

  /** Whether rankings still use embeddings (false without them, and after a query could not be embedded). */
  get usesEmbeddings(): boolean {
    return this.semantic !== undefined;
  }

  /** Embeds the conversation's query (or `query`) unless done already; a failure switches to lexical ranking. */
  async prepare(
    messages: readonly ChatMessage[],
    signal?: AbortSignal,
    query = conversationQuery(messages),
  ): Promise<void> {
    const semantic = this.semantic;
    if (semantic === undefined || this.queryVectors.has(query)) return;
    try {
      const vector = await semantic.embed(query, signal);
      // The latest conversation query and a search_tools query may be ranked again; older ones are not.
      if (this.queryVectors.size >= KEPT_QUERY_VECTORS)
        this.queryVectors.delete(this.queryVectors.keys().next().value!);
      this.queryVectors.set(query, vector);
    } catch (error) {
      if (signal?.aborted) throw error;
      this.semantic = undefined;
      semantic.onFailure(error);
    }
  }

  /** Lexical ranking, combined with the embedding of the query when `prepare` embedded it. */
  rank(query: string, limit: number): RankedTool[] {
    const learned = this.learnedScores(query);
    const vector = this.semantic === undefined ? undefined : this.queryVectors.get(query);
    if (vector === undefined || this.semantic === undefined) return this.index.rank(query, limit, learned);
    const cosines = similarities(this.semantic.vectors, vector);
    return fuseRankings(this.names, this.index.rank(query, undefined, learned), cosines, limit, this.fusion);
  }

  /**
   * The names to offer on the next call: `always`, then the tools already called (newest first), then the
   * best ranked for the conversation, k in all; then the tools `search_tools` found, beyond k.
   */
  pick(messages: readonly ChatMessage[], available: readonly string[], pinned: readonly string[] = []): string[] {
    const known = new Set(available);
    const found = foundTools(messages).filter((name) => known.has(name));
    this.learn(messages, found);
    const picked = new Set<string>();
    const add = (name: string): void => {
      if (known.has(name) && picked.size < this.maxTools) picked.add(name);
    };
    [...pinned, ...this.always, ...calledTools(messages)].forEach(add);
    // Found tools are offered beyond k anyway: ranking fills k with others.
    const fill = (name: string): void => {
      if (!found.includes(name)) add(name);
    };
    for (const { name } of this.rank(conversationQuery(messages), this.maxTools * 2 + found.length)) fill(name);
    available.forEach(fill);
    for (const name of found) picked.add(name);
    for (const name of picked) this.offered.add(name);
    return available.filter((name) => picked.has(name));
  }

  private learnedScores(query: string): Map<string, number> | undefined {
    if (this.evidence === undefined) return undefined;
    const scores = new Map<string, number>();
    for (const [key, score] of this.evidence.scores(query)) {
      const name = this.evidenceNames.get(key);
      if (name !== undefined) scores.set(name, score * LEARNED_WEIGHT);
    }
    return scores;
  }

  /**
   * Each call the model made of a tool this selection offered or search_tools found, once: the task (the
   * first user message) becomes evidence for that tool.
   */
  private learn(messages: readonly ChatMessage[], found: readonly string[]): void {
    const evidence = this.evidence;
    const task = messages.find((message) => message.role === 'user')?.content;
    if (evidence === undefined || typeof task !== 'string') return;
    for (const message of messages) {
      if (message.role !== 'assistant') continue;
      for (const call of message.tool_calls ?? []) {
        const name = call.function.name;
        if (this.learnedCalls.has(call.id) || !(this.offered.has(name) || found.includes(name))) continue;
        this.learnedCalls.add(call.id);
        evidence.record(task, this.evidenceKeys.get(name) ?? name);
      }
    }
  }

  /** The answer to a search_tools call: up to 5 tools not offered yet, each with its description. */
  search(query: string, offered: ReadonlySet<string>): string {
    const found = this.rank(query, SEARCH_RESULTS + offered.size)
      .filter(({ name }) => !offered.has(name))
      .slice(0, SEARCH_RESULTS);
    if (found.length === 0) return `No other tool matches "${query}". Try other words, or use the tools you have.`;
    const lines = found.map(({ name }) => `- ${name}: ${truncateDescription(this.descriptions.get(name) ?? '')}`);
    return `These tools are offered to you from now on:\n${lines.join('\n')}`;
  }
}

const truncateDescription = (text: string): string =>
  text.length <= DESCRIPTION_CHARS ? text : `${text.slice(0, DESCRIPTION_CHARS)}…`;

/** The task, the latest user message, the latest assistant text and the latest tool results. */
export function conversationQuery(messages: readonly ChatMessage[]): string {
  const users = messages.filter((message) => message.role === 'user');
  const parts = [users[0]?.content, users.length > 1 ? users.at(-1)?.content : undefined];
  const recent = messages.slice(-4);
  for (const message of recent) {
    if (message.role === 'tool') parts.push(message.content.slice(0, RESULT_QUERY_CHARS));
    if (message.role === 'assistant' && message.content) parts.push(message.content.slice(0, RESULT_QUERY_CHARS));
  }
  return parts.filter((part): part is string => typeof part === 'string').join('\n');
}

/** Names of the tools the conversation called, newest first. */
export function calledTools(messages: readonly ChatMessage[]): string[] {
  const names: string[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? [])
      if (!names.includes(call.function.name)) names.push(call.function.name);
  }
  return names;
}

/** Tools named in the answers to search_tools calls: read back from the history, so a resumed loop keeps them. */
export function foundTools(messages: readonly ChatMessage[]): string[] {
  const searches = new Set<string>();
  const found: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) if (call.function.name === SEARCH_TOOLS) searches.add(call.id);
    } else if (message.role === 'tool' && searches.has(message.tool_call_id)) {
      for (const [, name] of message.content.matchAll(/^- ([\w.-]+): /gm)) found.push(name);
    }
  }
  return found;
}
