import { isSecretArgument } from './argument-secrets';
import { redactUrl, SECRET_MASK } from './secrets';

/** Longest prefix that can still turn out to be `https://`: strings that may be URLs are held until they close. */
const URL_PREFIXES = ['http://', 'https://'];
const mayBecomeUrl = (text: string): boolean => {
  const lower = text.toLowerCase();
  return URL_PREFIXES.some((prefix) => prefix.startsWith(lower) || lower.startsWith(prefix));
};
const isUrl = (text: string): boolean => /^https?:\/\//i.test(text);

/** An open object or array; `secret` when it is (beneath) the value of a credential argument. */
type Frame =
  { kind: 'object'; expectKey: boolean; key: string | null; secret: boolean } | { kind: 'array'; secret: boolean };

/**
 * Masks credentials in JSON text that arrives in pieces (a model's streamed tool-call arguments), with the same
 * rules as `maskArguments` on parsed values: a string under a credential argument (by its words, or one of the
 * `declared` names its tool's schema declares secret) becomes SECRET_MASK, and
 * credential query values inside URLs are masked. `push` returns the text that is safe to show so far; a secret
 * value or a URL is held back until its closing quote. Text that is not valid JSON passes through unchanged,
 * except for strings the rules above apply to.
 */
export class JsonTextRedactor {
  private readonly stack: Frame[] = [];
  /** The string being read: its raw text (escapes kept) after the opening quote. */
  private string: { raw: string; escaped: boolean; role: 'key' | 'secret' | 'value'; streamed: boolean } | null = null;

  constructor(private readonly declared?: ReadonlySet<string>) {}

  push(chunk: string): string {
    let out = '';
    for (const char of chunk) out += this.step(char);
    return out;
  }

  /** What is still held back at the end (an unterminated string), masked when it was a secret. */
  end(): string {
    const open = this.string;
    this.string = null;
    if (!open || open.streamed) return '';
    if (open.role === 'secret') return SECRET_MASK;
    return isUrl(open.raw) ? redactUrl(open.raw) : open.raw;
  }

  private step(char: string): string {
    const open = this.string;
    if (open) return this.inString(open, char);
    const top = this.stack.at(-1);
    switch (char) {
      case '{':
        this.stack.push({ kind: 'object', expectKey: true, key: null, secret: this.valueRole(top) === 'secret' });
        return char;
      case '[':
        this.stack.push({ kind: 'array', secret: this.valueRole(top) === 'secret' });
        return char;
      case '}':
      case ']':
        this.stack.pop();
        return char;
      case ',':
        if (top?.kind === 'object') top.expectKey = true;
        return char;
      case ':':
        if (top?.kind === 'object') top.expectKey = false;
        return char;
      case '"': {
        const role = top?.kind === 'object' && top.expectKey ? 'key' : this.valueRole(top);
        this.string = { raw: '', escaped: false, role, streamed: role === 'key' };
        return char;
      }
      default:
        return char;
    }
  }

  private valueRole(top: Frame | undefined): 'secret' | 'value' {
    if (top === undefined) return 'value';
    if (top.secret) return 'secret';
    return top.kind === 'object' && top.key !== null && isSecretArgument(top.key, this.declared) ? 'secret' : 'value';
  }

  private inString(open: NonNullable<JsonTextRedactor['string']>, char: string): string {
    const closing = char === '"' && !open.escaped;
    open.escaped = !open.escaped && char === '\\';
    if (!closing) {
      open.raw += char;
      if (open.streamed) return char;
      // A plain value streams live once it can no longer become a URL.
      if (open.role === 'value' && !mayBecomeUrl(open.raw)) {
        open.streamed = true;
        return open.raw;
      }
      return '';
    }
    this.string = null;
    const top = this.stack.at(-1);
    if (open.role === 'key' && top?.kind === 'object') top.key = open.raw;
    if (open.streamed) return char;
    if (open.role === 'secret') return open.raw === '' ? char : `${SECRET_MASK}${char}`;
    return `${isUrl(open.raw) ? redactUrl(open.raw) : open.raw}${char}`;
  }
}

/** JSON text (e.g. a model's raw tool-call arguments) with credentials masked as `maskArguments` does. */
export const redactJsonText = (text: string, declared?: ReadonlySet<string>): string => {
  const redactor = new JsonTextRedactor(declared);
  return redactor.push(text) + redactor.end();
};
