import { OllamaTestServer } from '../../test/support/ollama-test-server';
import { OpenAITestServer } from '../../test/support/openai-test-server';
import { EmbeddingsUnsupportedError, OllamaEmbeddings, OpenAIEmbeddings } from './embeddings';
import { ProviderError } from './provider';
import { ProviderRegistry } from './provider-registry';

// Exact in float32, so base64 and JSON floats decode to the same numbers.
const vectorOf = (text: string): number[] => [text.length, 0.5, -0.25];
const retry = { baseDelayMs: 1, maxDelayMs: 1 };

describe(OpenAIEmbeddings.name, () => {
  let server: OpenAITestServer;

  beforeAll(async () => {
    server = await OpenAITestServer.start();
  });
  afterEach(() => server.reset());
  afterAll(() => server.close());

  it('should send the texts in one request and read the base64 vectors the SDK asks for, in input order', async () => {
    server.embedWith({ kind: 'vectors', embed: vectorOf });
    const sut = new OpenAIEmbeddings({ name: 'openai', baseUrl: server.baseUrl, apiKey: 'sk-test' });

    const vectors = await sut.embed('text-embedding-3-small', ['a', 'bbb']);

    expect(vectors).toEqual([vectorOf('a'), vectorOf('bbb')]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      path: '/v1/embeddings',
      body: { model: 'text-embedding-3-small', input: ['a', 'bbb'], encoding_format: 'base64' },
    });
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-test');
  });

  it('should fail at once with the status and the provider message when the endpoint refuses', async () => {
    server.embedWith({ kind: 'status', status: 404, body: { error: { message: 'model not found' } } });
    const sut = new OpenAIEmbeddings({ name: 'openai', baseUrl: server.baseUrl, retry });

    const failure = sut.embed('nope', ['a']);

    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    await expect(failure).rejects.toThrow(/embeddings 404: .*model not found/);
    expect(server.requests).toHaveLength(1);
  });

  it('should retry a lost connection and a 503, then read the vectors', async () => {
    server.embedWith(
      { kind: 'drop' },
      { kind: 'status', status: 503, body: { error: { message: 'overloaded' } } },
      { kind: 'vectors', embed: vectorOf },
    );
    const sut = new OpenAIEmbeddings({ name: 'openai', baseUrl: server.baseUrl, retry });

    await expect(sut.embed('m', ['a'])).resolves.toEqual([vectorOf('a')]);
    expect(server.requests).toHaveLength(3);
  });

  it('should give up after the retries with the last failure', async () => {
    server.embedWith({ kind: 'status', status: 503, body: { error: { message: 'overloaded' } } });
    const sut = new OpenAIEmbeddings({ name: 'openai', baseUrl: server.baseUrl, retry: { ...retry, maxRetries: 1 } });

    await expect(sut.embed('m', ['a'])).rejects.toThrow(/embeddings 503: .*overloaded/);
    expect(server.requests).toHaveLength(2);
  });

  it('should fail when the answer holds fewer vectors than texts', async () => {
    server.embedWith({ kind: 'status', status: 200, body: { object: 'list', data: [], model: 'm', usage: {} } });
    const sut = new OpenAIEmbeddings({ name: 'openai', baseUrl: server.baseUrl, retry });

    await expect(sut.embed('m', ['a', 'b'])).rejects.toThrow('2 texts sent, 0 vectors received');
  });
});

describe(OllamaEmbeddings.name, () => {
  let server: OllamaTestServer;

  beforeAll(async () => {
    server = await OllamaTestServer.start();
  });
  afterEach(() => server.reset());
  afterAll(() => server.close());

  it('should post the texts to /api/embed and return its vectors', async () => {
    server.embedWith({ kind: 'vectors', embed: vectorOf });
    const sut = new OllamaEmbeddings({ name: 'local', baseUrl: server.baseUrl });

    const vectors = await sut.embed('nomic-embed-text', ['hello', 'hi']);

    expect(vectors).toEqual([vectorOf('hello'), vectorOf('hi')]);
    expect(server.requests[0]).toMatchObject({
      path: '/api/embed',
      body: { model: 'nomic-embed-text', input: ['hello', 'hi'] },
    });
  });

  it("should fail with Ollama's own error text", async () => {
    server.embedWith({ kind: 'status', status: 400, body: { error: '"qwen3" does not support embeddings' } });
    const sut = new OllamaEmbeddings({ name: 'local', baseUrl: server.baseUrl, retry });

    await expect(sut.embed('qwen3', ['a'])).rejects.toThrow('embeddings 400: "qwen3" does not support embeddings');
  });

  it('should retry a lost connection', async () => {
    server.embedWith({ kind: 'drop' }, { kind: 'vectors', embed: vectorOf });
    const sut = new OllamaEmbeddings({ name: 'local', baseUrl: server.baseUrl, retry });

    await expect(sut.embed('nomic-embed-text', ['a'])).resolves.toEqual([vectorOf('a')]);
    expect(server.requests).toHaveLength(2);
  });
});

describe(`${ProviderRegistry.name} embeddings`, () => {
  const sut = new ProviderRegistry({
    openai: { protocol: 'openai-chat', base_url: 'http://127.0.0.1:1/v1' },
    gpt: { protocol: 'openai-responses', base_url: 'http://127.0.0.1:1/v1' },
    local: { protocol: 'ollama', base_url: 'http://127.0.0.1:1' },
    claude: { protocol: 'anthropic', base_url: 'http://127.0.0.1:1' },
  });

  it('should say which protocols have an embeddings API', () => {
    expect(sut.names.map((name) => [name, sut.embeds(name)])).toEqual([
      ['openai', true],
      ['gpt', true],
      ['local', true],
      ['claude', false],
    ]);
  });

  it('should refuse an Anthropic provider with a clear error', () => {
    expect(() => sut.getEmbedder('claude')).toThrow(new EmbeddingsUnsupportedError('claude', 'anthropic').message);
    expect(sut.getEmbedder('local')).toBeInstanceOf(OllamaEmbeddings);
    expect(sut.getEmbedder('gpt')).toBeInstanceOf(OpenAIEmbeddings);
  });
});
