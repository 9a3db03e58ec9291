import { ELLIPSIS, truncate } from '../../shared/truncate';

export const isHtml = (contentType: string | undefined): boolean =>
  /\b(text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '');

export const isJson = (contentType: string | undefined): boolean =>
  /\bapplication\/([\w.-]+\+)?json\b/i.test(contentType ?? '');

/** Decodes a body in the charset its Content-Type names, UTF-8 when absent or unknown. */
export const decodeText = (body: Buffer, contentType: string | undefined): string => {
  const charset = /charset="?([\w-]+)"?/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return body.toString('utf8');
  }
};

/** The `truncate` note for response bodies shown to the model. */
export const truncatedBody = (omitted: number): string => `\n… [truncated ${omitted} more characters]`;

/** A one-line excerpt of a (possibly HTML) body for error messages. */
export const excerpt = (text: string, maxChars = 500): string => {
  const flat = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return truncate(flat, maxChars, ELLIPSIS);
};
