import { Type, type Static } from '@sinclair/typebox';
import type { Principal } from '../../common/auth/principal';
import type { ToolDefinition } from '../../registry/tool-definition';
import { LruCache } from '../../shared/lru-cache';
import { validatorKey } from '../../registry/run-tool';
import { toolDocument, type ToolDocument } from '../tool-selection/tool-index';
import { ToolSelection } from '../tool-selection/tool-selection';
import type { NodeServices } from './node-handler';

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
  },
  { additionalProperties: false },
);
export type ToolSelectionData = Static<typeof ToolSelectionData>;

/** The plain names of a tools list (selectors are expanded at run time). */
export const namedTools = (entries: readonly ToolEntry[]): string[] =>
  entries.filter((entry): entry is string => typeof entry === 'string' && entry !== '*');

/**
 * Names first, in their order, then what the selectors add; each tool once. `prepared`: the named tools as the
 * run's start already resolved (and pinned) them.
 */
export async function resolveNodeTools(
  entries: readonly ToolEntry[],
  deps: NodeServices,
  principal: Principal,
  prepared?: readonly ToolDefinition[],
): Promise<ToolDefinition[]> {
  const tools = prepared ? [...prepared] : await resolveNamed(namedTools(entries), deps, principal);
  const seen = new Set(tools.map((tool) => tool.schema.function.name));
  for (const entry of entries) {
    if (typeof entry === 'string' && entry !== '*') continue;
    const category = typeof entry === 'string' ? null : entry.category;
    for (const tool of await deps.registry.resolveSelector(category, principal)) {
      if (seen.has(tool.schema.function.name)) continue;
      seen.add(tool.schema.function.name);
      tools.push(tool);
    }
  }
  return tools;
}

async function resolveNamed(names: string[], deps: NodeServices, principal: Principal): Promise<ToolDefinition[]> {
  const resolved = await deps.registry.resolve(names, principal);
  const unusable = [...resolved.missing, ...resolved.disabled];
  if (unusable.length > 0) throw new Error(`tools not available: ${unusable.join(', ')}`);
  return resolved.definitions;
}

// Tokenized once per tool version (stored tools: id@version), shared by every node and run of this process.
const documents = new LruCache<string, ToolDocument>(5000);

/** The selection of a node whose tools outnumber `max_tools`; undefined when every tool can be offered. */
export function toolSelectionFor(
  selection: ToolSelectionData | undefined,
  tools: readonly ToolDefinition[],
): ToolSelection | undefined {
  if (selection === undefined || tools.length <= selection.max_tools) return undefined;
  const docs = tools.map((tool) => {
    const key = validatorKey(tool);
    let document = documents.get(key);
    if (document === undefined) documents.set(key, (document = toolDocument(tool.schema)));
    return document;
  });
  const schemas = tools.map((tool) => tool.schema);
  return new ToolSelection(selection.max_tools, selection.always ?? [], schemas, docs);
}
