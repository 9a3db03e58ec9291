import { Type, type Static } from '@sinclair/typebox';
import type { ToolDefinition } from '../../shared/tool-definition';
import { LruCache } from '../../shared/lru-cache';
import { jsonHash } from '../../shared/json-hash';
import { toolDocument, ToolIndex, type ToolDocument } from '../../agent/selection/tool-index';
import { ToolSelection, type SemanticSearch } from '../../agent/selection/tool-selection';
import type { UsageEvidence } from '../../agent/selection/usage-evidence';
import { DEFAULT_FUSION } from '../../agent/selection/semantic-ranking';

/** A tool name, `"*"` (every enabled tool the run's owner may use) or `{"category": "…"}`. */
export const ToolEntry = Type.Union([
  Type.String({ minLength: 1, maxLength: 64 }),
  Type.Object({ category: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
]);
export type ToolEntry = Static<typeof ToolEntry>;

export const ToolSelectionData = Type.Object(
  {
    max_tools: Type.Integer({
      minimum: 1,
      maximum: 128,
      description:
        'With more tools than this, each model call offers this many, picked by relevance, plus search_tools',
    }),
    always: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        uniqueItems: true,
        maxItems: 128,
        description: 'Offered on every call; they count within max_tools',
      }),
    ),
    embedding_model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Embedding model of the embedding provider: its vectors of the tools and the query are combined with the lexical ranking',
      }),
    ),
    embedding_provider: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "Configured provider whose embeddings endpoint embeds (not anthropic); default the node's provider",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ToolSelectionData = Static<typeof ToolSelectionData>;

/** The plain names of a tools list (selectors are expanded at run time). */
export const namedTools = (entries: readonly ToolEntry[]): string[] =>
  entries.filter((entry): entry is string => typeof entry === 'string' && entry !== '*');

/** What the selectors of a tools list add: a category, or null for `"*"` (every usable tool). */
export const toolSelectors = (entries: readonly ToolEntry[]): Array<string | null> =>
  entries.flatMap((entry) => (typeof entry !== 'string' ? [entry.category] : entry === '*' ? [null] : []));

/**
 * A tool version's key: `id@version` for a stored tool; for others (builtin, MCP) a hash of the whole schema, name
 * and description included, since a server may change a description while the parameters stay.
 */
function documentKey(tool: ToolDefinition): string {
  if (tool.id !== undefined && tool.version !== undefined) return `${tool.id}@${tool.version}`;
  return `#${jsonHash(tool.schema)}`;
}

// Tokenized once per tool version, shared by every node and run of this process.
const documents = new LruCache<string, ToolDocument>(5000);
/**
 * Indexes by the versions of the tools they hold, in order: a node's runs rank over one index until a tool changes.
 * Building one over 500 tools takes 10–40 ms of CPU; an index holds a few MB, so only a few are kept.
 */
const indexes = new LruCache<string, ToolIndex>(8);

/** The index over these tool versions: built at most once while it stays among the recently used. */
export function toolIndexFor(tools: readonly ToolDefinition[]): ToolIndex {
  const keys = tools.map(documentKey);
  const key = keys.join('\n');
  let index = indexes.get(key);
  if (index === undefined) {
    index = new ToolIndex(
      tools.map((tool, position) => {
        let document = documents.get(keys[position]);
        if (document === undefined) documents.set(keys[position], (document = toolDocument(tool.schema)));
        return document;
      }),
    );
    indexes.set(key, index);
  }
  return index;
}

/** Whether the node's tools outnumber `max_tools`, so that each call offers a selection. */
export const selects = (selection: ToolSelectionData | undefined, tools: readonly ToolDefinition[]): boolean =>
  selection !== undefined && tools.length > selection.max_tools;

/** The selection of a node whose tools outnumber `max_tools`; undefined when every tool can be offered. */
export function toolSelectionFor(
  selection: ToolSelectionData | undefined,
  tools: readonly ToolDefinition[],
  semantic?: SemanticSearch,
  evidence?: UsageEvidence,
): ToolSelection | undefined {
  if (selection === undefined || !selects(selection, tools)) return undefined;
  const schemas = tools.map((tool) => tool.schema);
  const { max_tools: maxTools, always = [] } = selection;
  const keys = tools.map(toolUsageKey);
  return new ToolSelection(maxTools, always, schemas, toolIndexFor(tools), semantic, DEFAULT_FUSION, evidence, keys);
}

/** Where a tool's learned evidence is kept: a stored tool by id (a rename or a new version keeps it), others by name. */
export const toolUsageKey = (tool: ToolDefinition): string => tool.id ?? `name:${tool.schema.function.name}`;
