import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { checkParametersSchema } from '../json-schema/check-parameters-schema';
import { unescapePointerSegment } from '../json-schema/json-pointer';
import { isRecord } from '../shared/is-record';
import type { JsonSchema, ToolEffect } from '../shared/tool-types';
import { toToolName } from '../tools/tool-name';

const MAX_REPAIRS = 50;
const MAX_DESCRIPTION = 4000;

/** The ToolFlow tool name of a server's tool: `<server>__<tool>`, sanitised. */
export const mcpToolName = (server: string, tool: string): string => toToolName(`${server}__${tool}`);

/** MCP annotations as a ToolFlow effect; a tool that declares nothing is taken as mutating. */
export function effectOf(annotations: Tool['annotations']): ToolEffect {
  if (annotations?.readOnlyHint) return 'read_only';
  if (annotations?.destructiveHint) return 'dangerous';
  if (annotations?.idempotentHint) return 'idempotent';
  return 'mutating';
}

export type ImportedParameters = { ok: true; parameters: JsonSchema; notes: string[] } | { ok: false; reason: string };

const removeAt = (schema: JsonSchema, pointer: string): boolean => {
  const segments = pointer.split('/').slice(1).map(unescapePointerSegment);
  const last = segments.pop();
  let node: unknown = schema;
  for (const segment of segments) {
    node = Array.isArray(node) ? node[Number(segment)] : isRecord(node) ? node[segment] : undefined;
  }
  if (last === undefined) return false;
  if (Array.isArray(node)) {
    const index = Number(last);
    if (!Number.isInteger(index) || index < 0 || index >= node.length) return false;
    node.splice(index, 1);
    return true;
  }
  if (!isRecord(node) || !Object.hasOwn(node, last)) return false;
  delete node[last];
  return true;
};

/**
 * An MCP inputSchema as tool parameters that pass the save check of the Tools API. MCP only asks for an object
 * schema, so a server may send what the check refuses (a draft it does not support, a pattern the linear-time
 * regex engine cannot run, a malformed keyword): each such keyword is removed, which loosens validation there,
 * and named in `notes`. A schema that cannot be repaired that way is refused with the reason.
 */
export function importParameters(inputSchema: Tool['inputSchema']): ImportedParameters {
  const schema = structuredClone(inputSchema) as JsonSchema;
  const notes: string[] = [];
  if (schema.type !== 'object') {
    schema.type = 'object';
    notes.push('root set to type "object"');
  }
  for (let round = 0; round < MAX_REPAIRS; round += 1) {
    const { problems } = checkParametersSchema(schema);
    if (problems.length === 0) return { ok: true, parameters: schema, notes };
    let repaired = false;
    for (const problem of problems) {
      if (problem.path === '' || problem.path === '/type') continue;
      if (removeAt(schema, problem.path)) {
        notes.push(`removed ${problem.path} (${problem.message})`);
        repaired = true;
      }
    }
    if (!repaired) return { ok: false, reason: problems.map((p) => `${p.path || '/'}: ${p.message}`).join('; ') };
  }
  return { ok: false, reason: `more than ${MAX_REPAIRS} rounds of schema repairs` };
}

/** The description of the ToolFlow tool: the server's, or a title, with a line naming any schema repair. */
export function importDescription(server: string, tool: Tool, notes: readonly string[]): string {
  const base =
    tool.description?.trim() || tool.title || tool.annotations?.title || `${tool.name} (MCP server ${server})`;
  const note = notes.length > 0 ? `\n\nSchema adjusted on import: ${notes.join('; ')}.` : '';
  return `${base.slice(0, MAX_DESCRIPTION - note.length)}${note}`.slice(0, MAX_DESCRIPTION);
}
