import request from 'supertest';
import { DataSource } from 'typeorm';
import { ToolEmbeddingEntity } from '../../src/workflow/tool-selection/tool-embedding.entity';
import { APIZOO_POOL, createPoolTools } from '../support/apizoo-pool';
import { conceptEmbedder } from '../support/embeddings-endpoint';
import { OllamaTestServer } from '../support/ollama-test-server';
import { type OpenAITestServer, type RecordedRequest, reply } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, bearer, type TestApp } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

type Body = { tools?: Array<{ function: { name: string } }> };

// The right tool shares no word with the question: only a semantic model connects "haircut" with "barbers".
const QUESTION = 'Where can I get a haircut close to me?';
const VENUES = {
  name: 'venue_directory',
  description: 'Venues such as salons, barbers and restaurants around a position',
};
const embedder = conceptEmbedder([['haircut', 'barber', 'salon']]);
const MAX_TOOLS = 8;

describe('LLM node tool selection with embeddings (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let ollama: OllamaTestServer | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let api: WorkflowApi;

  const chatBodies = () =>
    llm.requests.filter((request) => request.path.endsWith('/chat/completions')).map((request) => request.body as Body);
  const offered = () => chatBodies().map((body) => (body.tools ?? []).map((tool) => tool.function.name));
  const embeddingRequests = (server: { requests: RecordedRequest[] }, path: string) =>
    server.requests.filter((request) => request.path === path);
  const inputCounts = (requests: RecordedRequest[]) =>
    requests.map((request) => (request.body.input as string[]).length);
  const selecting = (selection: Record<string, unknown> = {}) =>
    agentWorkflow({ tools: [{ category: 'apizoo' }], tool_selection: { max_tools: MAX_TOOLS, ...selection } });

  beforeAll(async () => {
    ollama = await OllamaTestServer.start();
    const ollamaUrl = ollama.baseUrl;
    stack = await startWorkflowStack((server) => ({
      LLM_PROVIDERS: JSON.stringify({
        openai: { base_url: server.baseUrl, api_key: 'test-key', default_model: 'test-model' },
        local: { protocol: 'ollama', base_url: ollamaUrl, default_model: 'qwen3' },
        claude: { protocol: 'anthropic', base_url: 'http://127.0.0.1:9', default_model: 'claude-sonnet-4-5' },
      }),
      LLM_DEFAULT_PROVIDER: 'openai',
    }));
    ({ app, llm } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    const venues = { function: { ...VENUES, parameters: { type: 'object' } } };
    await createPoolTools(api, [...APIZOO_POOL, venues], () => 'return {};');
  }, 120_000);

  afterEach(() => {
    llm.reset();
    ollama?.reset();
  });

  afterAll(async () => {
    await stack?.close();
    await ollama?.close();
  });

  it('should not offer the right tool when ranking lexically (the control)', async () => {
    llm.script([reply.text('Try the barber on Main Street.')]);

    const run = await api.run(selecting(), { question: QUESTION });

    expect(run.status).toBe('succeeded');
    expect(offered()[0]).toHaveLength(MAX_TOOLS + 1);
    expect(offered()[0]).not.toContain('venue_directory');
    expect(embeddingRequests(llm, '/v1/embeddings')).toHaveLength(0);
  });

  it('should offer the right tool thanks to the embeddings, embedding each tool version once', async () => {
    llm.embedWith({ kind: 'vectors', embed: embedder });
    llm.script([reply.text('Try the barber on Main Street.'), reply.text('Try the barber on Main Street.')]);
    const workflow = selecting({ embedding_model: 'text-embedding-3-small' });

    const first = await api.run(workflow, { question: QUESTION });
    const firstRequests = embeddingRequests(llm, '/v1/embeddings');
    llm.requests.length = 0;
    const second = await api.run(workflow, { question: QUESTION });

    expect([first.status, second.status]).toEqual(['succeeded', 'succeeded']);
    for (const tools of offered()) {
      expect(tools).toHaveLength(MAX_TOOLS + 1);
      expect(tools).toContain('venue_directory');
    }
    // 301 tools in batches of 64, then the query; the second run embeds only its query.
    expect(inputCounts(firstRequests)).toEqual([64, 64, 64, 64, 45, 1]);
    expect(firstRequests[0].body).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'base64' });
    expect(firstRequests[5].body.input).toEqual([QUESTION]);
    expect(inputCounts(embeddingRequests(llm, '/v1/embeddings'))).toEqual([1]);
  });

  it("should embed through another provider's endpoint (Ollama /api/embed) when embedding_provider names it", async () => {
    ollama?.embedWith({ kind: 'vectors', embed: embedder });
    llm.script([reply.text('Try the barber on Main Street.')]);

    const run = await api.run(selecting({ embedding_model: 'nomic-embed-text', embedding_provider: 'local' }), {
      question: QUESTION,
    });

    expect(run.status).toBe('succeeded');
    expect(offered()[0]).toContain('venue_directory');
    const requests = embeddingRequests(ollama as OllamaTestServer, '/api/embed');
    expect(inputCounts(requests)).toEqual([64, 64, 64, 64, 45, 1]);
    expect(requests[0].body).toMatchObject({ model: 'nomic-embed-text' });
    expect(embeddingRequests(llm, '/v1/embeddings')).toHaveLength(0);
  });

  it('should rank lexically and record why when the embeddings endpoint fails for the tools', async () => {
    llm.embedWith({ kind: 'status', status: 404, body: { error: { message: 'model "no-such-embed" not found' } } });
    llm.script([reply.text('Try the barber on Main Street.')]);

    const run = await api.run(selecting({ embedding_model: 'no-such-embed' }), { question: QUESTION });

    expect(run.status).toBe('succeeded');
    expect(offered()[0]).toHaveLength(MAX_TOOLS + 1);
    expect(offered()[0]).not.toContain('venue_directory');
    const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
    const failures = events.filter((event) => event.event === 'llm.embeddings_failed').map((event) => event.data);
    expect(failures).toEqual([
      expect.objectContaining({
        node_id: 'llm-1',
        stage: 'tools',
        provider: 'openai',
        model: 'no-such-embed',
        message: expect.stringContaining('model "no-such-embed" not found') as string,
      }),
    ]);
  });

  it('should rank lexically when only the query cannot be embedded', async () => {
    // The tool vectors of this model are stored by the first run; then the endpoint fails.
    const workflow = selecting({ embedding_model: 'query-fails-embed' });
    llm.embedWith({ kind: 'vectors', embed: embedder });
    llm.script([reply.text('One.')]);
    expect((await api.run(workflow, { question: QUESTION })).status).toBe('succeeded');
    llm.reset();
    llm.embedWith({ kind: 'status', status: 400, body: { error: { message: 'input is too long' } } });
    llm.script([reply.text('Two.')]);

    const run = await api.run(workflow, { question: QUESTION });

    expect(run.status).toBe('succeeded');
    expect(offered()[0]).not.toContain('venue_directory');
    expect(inputCounts(embeddingRequests(llm, '/v1/embeddings'))).toEqual([1]);
    const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
    expect(events.filter((event) => event.event === 'llm.embeddings_failed').map((event) => event.data)).toEqual([
      expect.objectContaining({ stage: 'query', message: expect.stringContaining('input is too long') as string }),
    ]);
  });

  it('should delete the stored vectors of a tool when it changes (older version) and when it is deleted', async () => {
    const probe = { name: 'probe_tool', description: 'Finds barbers for a probe', parameters: { type: 'object' } };
    const created = await api.createTool({
      name: probe.name,
      description: probe.description,
      category: 'probe',
      effect: 'read_only',
      function_schema: probe,
      implementation_type: 'code',
      implementation_config: { language: 'javascript', code: 'return {};' },
    });
    const id = (created.body as { id: string }).id;
    const workflow = agentWorkflow({
      tools: [{ category: 'apizoo' }, 'probe_tool'],
      tool_selection: { max_tools: MAX_TOOLS, embedding_model: 'cleanup-embed' },
    });
    const rows = app.app.get(DataSource).getRepository(ToolEmbeddingEntity);
    const probeKeys = async () =>
      (await rows.find({ where: { modelKey: 'openai/cleanup-embed' } }))
        .map((row) => row.toolKey)
        .filter((key) => key.startsWith(`${id}@`))
        .map((key) => key.slice(0, key.indexOf(':')));
    llm.embedWith({ kind: 'vectors', embed: embedder });
    llm.script([reply.text('One.'), reply.text('Two.')]);
    expect((await api.run(workflow, { question: QUESTION })).status).toBe('succeeded');
    const before = await probeKeys();

    await request(app.http)
      .patch(`/api/v1/tools/${id}`)
      .set(bearer(ADMIN_KEY))
      .send({ description: 'Finds barbers and salons for a probe' })
      .expect(200);
    const afterUpdate = await probeKeys();
    expect((await api.run(workflow, { question: QUESTION })).status).toBe('succeeded');
    const afterRun = await probeKeys();
    expect((await api.delete(`/tools/${id}`)).status).toBe(204);

    expect(before).toEqual([`${id}@1`]);
    expect(afterUpdate).toEqual([]);
    expect(afterRun).toEqual([`${id}@2`]);
    expect(await probeKeys()).toEqual([]);
    expect(await rows.countBy({ modelKey: 'openai/cleanup-embed' })).toBe(APIZOO_POOL.length + 1);
  });

  it('should refuse a definition whose embedding provider has no embeddings API (Anthropic)', async () => {
    const onClaude = await api.post(
      '/workflows',
      selecting({ embedding_model: 'voyage-3', embedding_provider: 'claude' }),
    );
    const claudeNode = await api.post(
      '/workflows',
      agentWorkflow({
        provider: 'claude',
        tools: [{ category: 'apizoo' }],
        tool_selection: { max_tools: MAX_TOOLS, embedding_model: 'voyage-3' },
      }),
    );

    expect(onClaude.status).toBe(400);
    expect(JSON.stringify(onClaude.body)).toContain(
      'provider \\"claude\\" speaks anthropic, which has no embeddings API',
    );
    expect(claudeNode.status).toBe(400);
    expect(JSON.stringify(claudeNode.body)).toContain('tool_selection.embedding_model');
  });
});
