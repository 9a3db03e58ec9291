import { headByTokens } from '../llm/token-count';
import type { ToolDefinition } from '../shared/tool-definition';
import type { FunctionTool } from '../shared/tool-types';

import { READ_TOOL_RESULT } from '../shared/reserved-tool-names';

export { READ_TOOL_RESULT };

/** Characters per page for each allowed token: JSON and prose average 3-4 characters a token. */
const CHARS_PER_TOKEN = 3;
/** Room for the line that says where the page is. */
const PAGE_NOTE_TOKENS = 40;

/** Offered to the model once a result of this node was cut (see cutToolResult). */
export const readToolResultSchema: FunctionTool = {
  type: 'function',
  function: {
    name: READ_TOOL_RESULT,
    description:
      'Reads a page of a tool result that was cut because it was too long. Pass the ref named in the cut ' +
      'result; offset and length are in characters. Each answer says the next offset.',
    parameters: {
      type: 'object',
      properties: {
        ref: { type: 'string', minLength: 1, maxLength: 64, description: 'The ref named in the cut result' },
        offset: { type: 'integer', minimum: 0, description: 'First character to read; default 0' },
        length: { type: 'integer', minimum: 1, description: 'Characters to read; default and most: one page' },
      },
      required: ['ref'],
      additionalProperties: false,
    },
  },
};

interface ReadParams {
  ref: string;
  offset?: number;
  length?: number;
}

/**
 * `read_tool_result` over the results one run stored. A page never holds more than `maxTokens` tokens, so
 * reading it back is never cut again.
 */
export function readToolResultTool(read: (ref: string) => Promise<string | null>, maxTokens: number): ToolDefinition {
  const pageChars = Math.max(100, (maxTokens - PAGE_NOTE_TOKENS) * CHARS_PER_TOKEN);
  return {
    schema: readToolResultSchema,
    effect: 'read_only',
    async execute(context) {
      // The arguments were validated against the schema above.
      const params = context.params as unknown as ReadParams;
      const content = await read(params.ref);
      if (content === null) {
        return { response: `Error: there is no stored tool result with ref "${params.ref}" in this run.` };
      }
      const offset = Math.min(params.offset ?? 0, content.length);
      const wanted = content.slice(offset, offset + Math.min(params.length ?? pageChars, pageChars));
      const page = headByTokens(wanted, maxTokens - PAGE_NOTE_TOKENS);
      const end = offset + page.length;
      const where = end < content.length ? `next offset ${end}` : 'end of the result';
      return {
        response: `${page}\n[characters ${offset} to ${end} of ${content.length}; ${where}]`,
        data: { ref: params.ref, offset, end, total: content.length },
      };
    },
  };
}
