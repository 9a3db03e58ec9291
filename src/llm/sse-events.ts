import type { ServerSentEvent } from 'openai/core/streaming';

/**
 * The events of a `text/event-stream` body, read as the openai SDK's `_iterSSEMessages` reads them (same events,
 * same fields): lines end at `\n`, `\r\n` or a lone `\r`; an empty line ends an event that has a `data` or an
 * `event` field; `:` starts a comment; one space after a field's colon is dropped; `data` lines join with `\n`;
 * a byte order mark starting a line is dropped; an event the body ends in before its empty line is not handed
 * out. It works on decoded text, a chunk at a time, where the SDK copies the rest of the body's bytes once per
 * event (it concatenates and slices byte arrays) and scans them byte by byte in JavaScript. Breaking off returns
 * `chunks`, which cancels the body.
 */
export async function* sseEvents(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  // Byte order marks are dropped per line below, as the SDK's per-line decoding drops them.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const event = new EventLines();
  let pending = '';
  // A chunk that ended with `\r`: a `\n` that starts the next one belongs to the same line end.
  let afterCarriageReturn = false;
  for await (const chunk of chunks) {
    let text = decoder.decode(chunk, { stream: true });
    if (text === '') continue;
    if (afterCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    afterCarriageReturn = text.endsWith('\r');
    const lines = (pending + text).split(LINE_END);
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const sse = event.line(line);
      if (sse) yield sse;
    }
  }
}

const LINE_END = /\r\n|\r|\n/;
const BYTE_ORDER_MARK = 0xfeff;

/** The fields of the event being read, as the SDK's SSEDecoder keeps them. */
class EventLines {
  private event: string | null = null;
  private data: string[] = [];
  private raw: string[] = [];

  /** Takes one line (without its line end); returns the event that an empty line ends. */
  line(text: string): ServerSentEvent | null {
    const line = text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
    if (line === '') {
      if (!this.event && this.data.length === 0) return null;
      const sse = { event: this.event, data: this.data.join('\n'), raw: this.raw };
      this.event = null;
      this.data = [];
      this.raw = [];
      return sse;
    }
    this.raw.push(line);
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return null;
  }
}
