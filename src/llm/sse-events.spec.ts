import { _iterSSEMessages, type ServerSentEvent } from 'openai/core/streaming';
import { sseEvents } from './sse-events';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

async function* chunked(body: Uint8Array, cuts: readonly number[]): AsyncGenerator<Uint8Array> {
  let start = 0;
  for (const cut of [...cuts, body.length]) {
    yield await Promise.resolve(body.subarray(start, cut));
    start = cut;
  }
}

const collect = async (events: AsyncIterable<ServerSentEvent>): Promise<ServerSentEvent[]> => {
  const out: ServerSentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
};

/** What the openai SDK's own reader makes of the same chunks. */
const sdkEvents = (body: Uint8Array, cuts: readonly number[]) =>
  collect(_iterSSEMessages({ body: chunked(body, cuts) } as unknown as Response, new AbortController()));

/** A small deterministic generator, so that a failing chunking can be reproduced. */
const randomCuts = (length: number, seed: number): number[] => {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const cuts = new Set<number>();
  const count = Math.floor(next() * 8);
  for (let index = 0; index < count; index++) cuts.add(1 + Math.floor(next() * Math.max(1, length - 1)));
  return [...cuts].filter((cut) => cut < length).sort((a, b) => a - b);
};

const BODIES: Record<string, string> = {
  'LF events': 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n',
  'CRLF events': 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n',
  'CR events': 'data: one\r\rdata: two\r\r',
  'mixed line ends': 'event: x\r\ndata: a\rdata: b\n\r\ndata: c\n\n',
  'comments and unknown fields': ': keep-alive\n\nid: 7\nretry: 10\ndata:no space\ndata:  two spaces\nfoo\n\n',
  'event without data, empty event name': 'event: ping\n\nevent:\n\ndata\n\n',
  'multi-byte text': 'data: {"text":"héllo → 世界 🎉"}\n\n',
  'byte order marks': '\uFEFFdata: first\n\n\uFEFFdata: second\n\uFEFF\n',
  'unterminated last event': 'data: kept\n\ndata: cut off',
  'unterminated last line': 'data: kept\n\ndata: cut\n',
  'no events': '\n\n\r\n',
};

describe(sseEvents.name, () => {
  it.each(Object.entries(BODIES))('should read %s as the SDK reads them, however the body is cut', async (_, text) => {
    const body = bytes(text);
    const expected = await sdkEvents(body, []);

    for (let seed = 1; seed <= 60; seed++) {
      const cuts = randomCuts(body.length, seed);
      await expect(collect(sseEvents(chunked(body, cuts)))).resolves.toEqual(expected);
      await expect(sdkEvents(body, cuts)).resolves.toEqual(expected);
    }
    for (let cut = 1; cut < body.length; cut++) {
      await expect(collect(sseEvents(chunked(body, [cut])))).resolves.toEqual(expected);
    }
  });

  it('should hand out an event as soon as its empty line came', async () => {
    const first = bytes('data: one\n\n');
    let sent = 0;
    async function* slow(): AsyncGenerator<Uint8Array> {
      sent = 1;
      yield await Promise.resolve(first);
      sent = 2;
      yield bytes('data: two\n\n');
    }

    const events = sseEvents(slow());
    const next = await events.next();

    expect(next.value).toEqual({ event: null, data: 'one', raw: ['data: one'] });
    expect(sent).toBe(1);
  });

  it('should stop reading the body when the reader breaks off', async () => {
    let returned = false;
    const body: AsyncIterableIterator<Uint8Array> = {
      next: () => Promise.resolve({ done: false, value: bytes('data: x\n\n') }),
      return: () => {
        returned = true;
        return Promise.resolve({ done: true, value: undefined });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };

    for await (const event of sseEvents(body)) {
      expect(event.data).toBe('x');
      break;
    }

    expect(returned).toBe(true);
  });
});
