import { delta, OpenAITestServer, reply, splitText } from './openai-test-server';

type Json = Record<string, unknown>;

interface ToolCallItem {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

describe(OpenAITestServer.name, () => {
  let sut: OpenAITestServer;

  beforeAll(async () => {
    sut = await OpenAITestServer.start();
  });

  afterEach(() => sut.reset());

  afterAll(async () => {
    await sut.close();
  });

  const post = (body: Json, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> =>
    fetch(`${sut.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });

  const waitFor = async (condition: () => boolean): Promise<void> => {
    while (!condition()) await new Promise((resolve) => setImmediate(resolve));
  };

  const streamed = async (body: Json = {}): Promise<{ chunks: Json[]; data: string[] }> => {
    const response = await post({ model: 'm', stream: true, ...body });
    const text = await response.text();
    const data = text
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => event.slice('data: '.length));
    const chunks = data.filter((line) => line !== '[DONE]').map((line) => JSON.parse(line) as Json);
    return { chunks, data };
  };

  const deltas = (chunks: Json[]): Json[] =>
    chunks.flatMap((chunk) => (chunk.choices as Json[]).map((choice) => choice.delta as Json));

  const toolItems = (chunks: Json[]): ToolCallItem[] =>
    deltas(chunks).flatMap((part) => (part.tool_calls as ToolCallItem[] | undefined) ?? []);

  const text = (chunks: Json[]): string =>
    deltas(chunks)
      .map((part) => (typeof part.content === 'string' ? part.content : ''))
      .join('');

  const finishReasons = (chunks: Json[]): unknown[] =>
    chunks
      .flatMap((chunk) => (chunk.choices as Json[]).map((choice) => choice.finish_reason))
      .filter((r) => r !== null);

  it('should stream a text answer as chat.completion.chunk events ending with [DONE]', async () => {
    sut.script([reply.text('Hello there, world')]);

    const { chunks, data } = await streamed();

    expect(data.at(-1)).toBe('[DONE]');
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: 'chatcmpl-test-1', object: 'chat.completion.chunk', model: 'm' });
      expect(typeof chunk.created).toBe('number');
    }
    expect(text(chunks)).toBe('Hello there, world');
    expect(finishReasons(chunks)).toEqual(['stop']);
  });

  it('should record the parsed body and the headers of every request', async () => {
    sut.script([reply.text('a'), reply.text('b')]);

    await streamed({ tools: [{ type: 'function', function: { name: 'x', parameters: {} } }] });
    await post({ model: 'm' }, { authorization: 'Bearer k' }).then((response) => response.text());

    expect(sut.requests).toHaveLength(2);
    expect(sut.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(sut.requests[0].body.tools).toEqual([{ type: 'function', function: { name: 'x', parameters: {} } }]);
    expect(sut.requests[1].headers.authorization).toBe('Bearer k');
  });

  it('should answer a non-streamed request with one chat.completion object', async () => {
    sut.script([reply.toolCalls([{ name: 'get_weather', arguments: { city: 'Paris' } }], { reasoning: 'hmm' })]);

    const body = (await (await post({ model: 'm', stream: false })).json()) as Json;

    expect(body).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            reasoning_content: 'hmm',
            tool_calls: [
              { id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  });

  it('should send usage in a final chunk with empty choices only when include_usage is asked', async () => {
    const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
    sut.script([reply.text('hi', { usage }), reply.text('hi', { usage })]);

    const withUsage = await streamed({ stream_options: { include_usage: true } });
    const without = await streamed();

    expect(withUsage.chunks.at(-1)).toMatchObject({ choices: [], usage });
    expect(withUsage.chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(without.chunks.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('should split arguments into small fragments and interleave parallel calls by index', async () => {
    sut.script([
      reply.toolCalls([
        { name: 'a', arguments: '{"x":"123456"}' },
        { name: 'b', arguments: '{"y":"abcdef"}' },
      ]),
    ]);

    const items = toolItems((await streamed()).chunks);

    expect(items.slice(0, 2)).toEqual([
      { index: 0, id: 'call_0', type: 'function', function: { name: 'a', arguments: '' } },
      { index: 1, id: 'call_1', type: 'function', function: { name: 'b', arguments: '' } },
    ]);
    expect(items.map((item) => item.index)).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
    const args = (index: number): string =>
      items
        .filter((item) => item.index === index)
        .map((item) => item.function?.arguments)
        .join('');
    expect([args(0), args(1)]).toEqual(['{"x":"123456"}', '{"y":"abcdef"}']);
  });

  it('should build the awkward tool-call variations on demand', async () => {
    sut.script([
      reply.toolCalls([{ name: 'a', arguments: '{"k":1}' }], {
        whole: true,
        omitType: true,
        finishWithLastFragment: true,
      }),
      reply.toolCalls([{ name: 'a', arguments: '{"k":1}', nameLate: true }], {
        omitIndex: true,
        emptyContinuation: true,
      }),
      reply.toolCalls([{ name: null, id: null, arguments: '{}' }], { indexBase: 1, finishReason: null, content: '' }),
    ]);

    const whole = await streamed();
    const noIndex = await streamed();
    const nameless = await streamed();

    expect(toolItems(whole.chunks)).toEqual([
      { index: 0, id: 'call_0', function: { name: 'a', arguments: '{"k":1}' } },
    ]);
    expect(whole.chunks.at(-1)?.choices).toMatchObject([{ finish_reason: 'tool_calls', delta: { tool_calls: [{}] } }]);
    const late = toolItems(noIndex.chunks);
    expect(late.some((item) => 'index' in item)).toBe(false);
    expect(late[0].function).toEqual({ arguments: '' });
    expect(late[1]).toEqual({ id: '', type: 'function', function: { name: 'a', arguments: '{"k' } });
    expect(late.slice(2).every((item) => item.id === '' && item.function?.name === '')).toBe(true);
    const items = toolItems(nameless.chunks);
    expect(items.every((item) => item.index === 1 && item.id === undefined && item.function?.name === undefined)).toBe(
      true,
    );
    expect(deltas(nameless.chunks)[0]).toMatchObject({ role: 'assistant', content: '' });
    expect(finishReasons(nameless.chunks)).toEqual([]);
  });

  it('should split arguments by UTF-16 code units so a surrogate pair can arrive in two chunks', async () => {
    sut.script([reply.toolCalls([{ name: 'a', arguments: '{"e":"😀"}' }], { argsChunkSize: 1 })]);

    const fragments = toolItems((await streamed()).chunks).map((item) => item.function?.arguments ?? '');

    expect(fragments).toContain('\ud83d');
    expect(fragments.join('')).toBe('{"e":"😀"}');
  });

  it('should deliver an SSE body cut into single-byte writes intact', async () => {
    sut.script([reply.text('北京 😀 ok', { bytesPerWrite: 1 })]);

    const { chunks } = await streamed();

    expect(text(chunks)).toBe('北京 😀 ok');
  });

  it('should send raw chunks and raw SSE text exactly as given', async () => {
    sut.script([reply.chunks([{ raw: ': keep-alive\n\n' }, { id: 'x', choices: [] }], { raw: true, done: false })]);

    const response = await post({ model: 'm', stream: true, stream_options: { include_usage: true } });

    expect(await response.text()).toBe(': keep-alive\n\ndata: {"id":"x","choices":[]}\n\n');
  });

  it('should answer a scripted HTTP error with its status, body and headers', async () => {
    sut.script([reply.error(429, 'Rate limit reached', { headers: { 'retry-after': '2' } })]);

    const response = await post({ model: 'm', stream: true });

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({
      error: { message: 'Rate limit reached', type: 'rate_limit_exceeded', param: null, code: null },
    });
  });

  it('should answer 500 naming the request when the script is exhausted', async () => {
    const response = await post({ model: 'm' });

    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining('script exhausted') } });
  });

  it('should cut the connection mid-stream after the given number of events', async () => {
    sut.script([reply.text('abcdefghijkl', { dropAfterEvents: 2 })]);

    const response = await post({ model: 'm', stream: true });

    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('should drop the connection without answering', async () => {
    sut.script([reply.drop()]);

    await expect(post({ model: 'm' })).rejects.toThrow();
    expect(sut.requests).toHaveLength(1);
  });

  it('should answer one chat.completion JSON object to a streaming request when told to ignore streaming', async () => {
    sut.script([reply.ignoringStream(reply.toolCalls([{ name: 'f', id: 'call_1', arguments: { a: 1 } }]))]);

    const response = await post({ model: 'm', stream: true });

    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          message: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { total_tokens: 15 },
    });
  });

  it('should answer any body with the given status and content type', async () => {
    sut.script([reply.body('<html>hi</html>', { contentType: 'text/html' })]);

    const response = await post({ model: 'm', stream: true });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toBe('<html>hi</html>');
  });

  it('should record a request it never answers', async () => {
    sut.script([reply.hang()]);
    const controller = new AbortController();

    const pending = post({ model: 'm', stream: true }, {}, controller.signal);
    await waitFor(() => sut.requests.length === 1);
    controller.abort();

    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('should fall silent after the given number of events and keep the connection open', async () => {
    sut.script([reply.text('abcdefgh', { chunkSize: 2, stallAfterEvents: 2 })]);
    const controller = new AbortController();
    const response = await post({ model: 'm', stream: true }, {}, controller.signal);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = '';

    while (received.split('\n\n').length < 3) received += new TextDecoder().decode((await reader.read()).value);
    const next = reader.read();
    controller.abort();

    await expect(next).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).not.toContain('[DONE]');
    expect(received.split('\n\n').filter((event) => event.startsWith('data: '))).toHaveLength(2);
  });

  it('should pick a turn from a function of the request', async () => {
    sut.script([reply.from((request) => reply.text(`model was ${String(request.body.model)}`))]);

    const { chunks } = await streamed({ model: 'qwen' });

    expect(text(chunks)).toBe('model was qwen');
  });

  it('should wrap payload helpers in the chunk envelope', async () => {
    sut.script([reply.chunks([delta({ content: 'x' }, 'stop')])]);

    const { chunks } = await streamed();

    expect(chunks).toEqual([
      {
        id: 'chatcmpl-test-1',
        object: 'chat.completion.chunk',
        created: expect.any(Number),
        model: 'm',
        choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: 'stop' }],
      },
    ]);
  });

  it('should answer 404 for routes it does not serve', async () => {
    const response = await fetch(`${sut.baseUrl}/embeddings`, { method: 'POST', body: '{}' });

    expect(response.status).toBe(404);
  });

  it('should split text into pieces of the given size', () => {
    expect(splitText('abcde', 2)).toEqual(['ab', 'cd', 'e']);
  });
});
