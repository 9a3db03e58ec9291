import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExecuteResult } from '../../shared/tool-definition';
import { ToolExecutionError } from '../../shared/tool-errors';
import { parseJsonWithin } from '../../shared/json-depth';

type ContentBlock = CallToolResult['content'][number];

const describe = (block: ContentBlock): string => {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
    case 'resource_link':
      return `[resource ${block.uri}${block.description ? `: ${block.description}` : ''}]`;
  }
};

const parseJson = (text: string): unknown => {
  try {
    return parseJsonWithin(text);
  } catch {
    return undefined;
  }
};

/**
 * An MCP tool result as a ToolFlow tool result: text parts (and a line per image, audio or resource) become the
 * response the model reads; `data` is the structured content, else the JSON of a lone text part, else the
 * content blocks when they hold media. `isError` is a tool failure the model hears about.
 */
export function toToolResult(result: CallToolResult): ToolExecuteResult {
  const content = result.content ?? [];
  const text = content.map(describe).join('\n');
  const types = [...new Set(content.map((block) => block.type))];
  if (result.isError) {
    throw new ToolExecutionError(text || 'the MCP tool reported an error without a message', {
      metadata: { content_types: types },
    });
  }
  const structured = result.structuredContent;
  const media = content.some((block) => block.type !== 'text');
  const lone = content.length === 1 && content[0].type === 'text' ? parseJson(content[0].text) : undefined;
  return {
    response: text || (structured ? JSON.stringify(structured) : ''),
    data: structured ?? lone ?? (media ? content : undefined),
    metadata: { content_types: types },
  };
}
