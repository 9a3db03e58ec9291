import type { OutboundResponse } from '../../outbound/outbound-request';
import { type ToolExecuteResult } from '../../shared/tool-definition';
import { ToolExecutionError } from '../../shared/tool-errors';
import { htmlToMarkdown } from './html-to-markdown';
import type { HttpToolConfig } from './http-tool-config';
import { pickFields } from './response-fields';
import { decodeText, excerpt, isHtml, isJson } from './response-text';
import { parseJsonWithin } from '../../shared/json-depth';

const PRETTY_LIMIT = 4_000;

const jsonText = (data: unknown): string => {
  const pretty = JSON.stringify(data, null, 2) ?? 'null';
  return pretty.length <= PRETTY_LIMIT ? pretty : JSON.stringify(data);
};

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: parseJsonWithin(text) };
  } catch {
    return { ok: false };
  }
};

/** Error for a non-2xx response: status plus a short excerpt, so the model can react. */
export const httpStatusError = (response: OutboundResponse, metadata: Record<string, unknown>): ToolExecutionError => {
  const text = excerpt(decodeText(response.body, response.headers['content-type']));
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return new ToolExecutionError(text ? `${status}: ${text}` : status, { statusCode: response.status, metadata });
};

/**
 * Turns a successful response into text for the model (`response`) and structure for callers (`data`). The text is
 * the whole response (the outbound client already capped it at OUTBOUND_MAX_RESPONSE_BYTES): what the model sees of
 * it is decided by the node's max_tool_result_tokens, and the rest stays readable with read_tool_result.
 */
export const formatHttpResponse = (
  config: Pick<HttpToolConfig, 'parse_mode' | 'response_fields'>,
  response: OutboundResponse,
  metadata: Record<string, unknown>,
): ToolExecuteResult => {
  const contentType = response.headers['content-type'];
  const text = decodeText(response.body, contentType);
  const mode = config.parse_mode ?? (isJson(contentType) ? 'json' : isHtml(contentType) ? 'markdown' : 'raw');

  if (mode === 'json' || (config.response_fields?.length && mode === 'raw')) {
    const parsed = text.trim() === '' ? { ok: true as const, value: null } : parseJson(text);
    if (!parsed.ok) {
      if (mode === 'json') {
        throw new ToolExecutionError(`expected a JSON response but got: ${excerpt(text, 200)}`, { metadata });
      }
    } else {
      const data = config.response_fields?.length ? pickFields(parsed.value, config.response_fields) : parsed.value;
      return { response: jsonText(data), data, metadata };
    }
  }
  const shown = mode === 'markdown' && isHtml(contentType) ? htmlToMarkdown(text) : text;
  return { response: shown, metadata };
};
