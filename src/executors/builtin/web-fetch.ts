import { htmlToMarkdown } from '../http/html-to-markdown';
import { decodeText, excerpt, isHtml, truncatedBody } from '../http/response-text';
import { ToolExecutionError } from '../../shared/tool-errors';
import { defineBuiltin } from './builtin-tool';
import { truncate } from '../../shared/truncate';
import { parseJsonWithin } from '../../shared/json-depth';

const FORMATS = ['markdown', 'json', 'raw'] as const;
const TEXTUAL = /^(text\/|application\/([\w.-]+\+)?(json|xml|javascript)|application\/xhtml\+xml)/i;
const ACCEPT: Record<(typeof FORMATS)[number], string> = {
  markdown: 'text/html, text/plain;q=0.9, */*;q=0.5',
  json: 'application/json, */*;q=0.5',
  raw: '*/*',
};

export interface WebFetchParams {
  url: string;
  format?: (typeof FORMATS)[number];
  max_chars?: number;
}

const titleOf = (html: string): string | undefined =>
  /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim() || undefined;

/** Reads a public web page or JSON document for the model. */
export const webFetch = defineBuiltin<WebFetchParams>({
  name: 'web_fetch',
  category: 'web',
  description:
    'Fetch a public web page or document with GET and return its content: HTML pages as readable Markdown (scripts and styles removed), JSON as JSON, or the raw text. Private, loopback and cloud-metadata addresses are refused.',
  effect: 'read_only',
  timeoutMs: 60_000,
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        maxLength: 4096,
        description: 'Absolute http:// or https:// URL of the page, e.g. "https://example.com/docs".',
      },
      format: {
        type: 'string',
        enum: [...FORMATS],
        default: 'markdown',
        description:
          '"markdown" converts HTML to Markdown (default), "json" parses a JSON document, "raw" returns the text as sent.',
      },
      max_chars: {
        type: 'integer',
        minimum: 500,
        maximum: 100_000,
        description:
          'Longest content returned, in characters; the rest is cut off. Leave it out to get the whole document.',
      },
    },
  },
  async execute(params, context, env) {
    const format = params.format ?? 'markdown';
    const response = await env.outbound.request({
      method: 'GET',
      url: params.url,
      headers: { accept: ACCEPT[format] },
      signal: context.signal,
    });
    const contentType = response.headers['content-type'];
    const text = decodeText(response.body, contentType);
    if (response.status < 200 || response.status > 299) {
      throw new ToolExecutionError(`HTTP ${response.status} ${response.statusText}: ${excerpt(text)}`.trim(), {
        statusCode: response.status,
      });
    }
    if (contentType && !TEXTUAL.test(contentType)) {
      throw new ToolExecutionError(`web_fetch only reads text, but ${response.finalUrl} is ${contentType}`);
    }

    let content = text;
    let json: unknown;
    if (format === 'json') {
      try {
        json = parseJsonWithin(text);
      } catch {
        throw new ToolExecutionError(`expected JSON but ${response.finalUrl} sent: ${excerpt(text, 200)}`);
      }
      content = JSON.stringify(json);
    } else if (format === 'markdown' && (isHtml(contentType) || /^\s*<(!doctype html|html)/i.test(text))) {
      content = htmlToMarkdown(text);
    }
    // Cut only when the caller asked: otherwise the node's max_tool_result_tokens decides what the model sees.
    const maxChars = params.max_chars ?? Infinity;
    const shown = truncate(content, maxChars, { note: truncatedBody });
    const title = format === 'markdown' ? titleOf(text) : undefined;
    return {
      response: title ? `Title: ${title}\n\n${shown}` : shown,
      data: {
        url: response.finalUrl,
        status: response.status,
        content_type: contentType ?? null,
        ...(title ? { title } : {}),
        content: json ?? shown,
        truncated: content.length > maxChars,
      },
      metadata: { status_code: response.status, response_bytes: response.bytes, final_url: response.finalUrl },
    };
  },
});
