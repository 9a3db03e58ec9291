import { type ChildApp, startChildApp } from '../support/child-app';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, throwawayDatabase } from '../support/test-app';
import { startToolBackend, type ToolBackend } from '../support/tool-backend';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, httpToolBody, llmEnv } from '../support/workflow-fixtures';

interface RunBody {
  status: string;
  outputs: Record<string, unknown> | null;
  nodes: Array<{ node_id: string; status: string; tool_calls: Array<{ call_id: string; status: string }> }>;
}
type Message = { role: string; tool_call_id?: string; content?: string | null };
interface LogPage {
  items: Array<{ run_id: string | null; call_id: string | null; status: string; input: string; output: string | null }>;
}

// Each start compiles the app in a process of its own.
jest.setTimeout(240_000);

describe('Embedded runs after kill -9 (e2e, child processes)', () => {
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let database: { url: string; drop: () => Promise<void> };
  let child: ChildApp | undefined;

  const api = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const response = await fetch(`${child?.url}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  const succeeded = async (id: string): Promise<RunBody> => {
    await waitFor(async () => (await api<RunBody>(`/runs/${id}`)).status === 'succeeded', {
      what: 'the resumed run succeeded',
      timeoutMs: 60_000,
    });
    return api<RunBody>(`/runs/${id}`);
  };

  const killHard = async () => {
    child?.process.kill('SIGKILL');
    await child?.exited;
  };

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    backend = await startToolBackend();
  });

  beforeEach(async () => {
    database = await throwawayDatabase();
  });

  afterEach(async () => {
    await killHard();
    child = undefined;
    backend.releaseAll();
    llm.reset();
    await database.drop();
  });

  afterAll(async () => {
    await backend.close();
    await llm.close();
  });

  it('should resume from the checkpoint: no finished model or tool call again, the mutating call in flight not repeated, every finished call logged once', async () => {
    const env = llmEnv(llm, { DATABASE_URL: database.url });
    child = await startChildApp(env);
    await api('/tools', { method: 'POST', body: httpToolBody('lookup', `${backend.origin}/lookup?id={id}`) });
    await api('/tools', {
      method: 'POST',
      body: httpToolBody('write', `${backend.origin}/write?id={id}`, { effect: 'mutating' }),
    });
    llm.script([
      reply.toolCalls([{ id: 'call_lookup', name: 'lookup', arguments: { id: 'a' } }]),
      // Mutating calls run one after another: call_written has finished (its result is checkpointed, its log is
      // written only with the next model answer) when call_write starts.
      reply.toolCalls([
        { id: 'call_written', name: 'write', arguments: { id: 'w' } },
        { id: 'call_write', name: 'write', arguments: { id: 'b' } },
      ]),
      reply.hang(),
      reply.text('The write may or may not have happened.'),
    ]);
    backend.hold();
    const { id } = await api<{ id: string }>('/workflow-runs', {
      method: 'POST',
      body: { definition: agentWorkflow({ tools: ['lookup', 'write'] }), inputs: { question: 'Write b.' } },
    });
    await waitFor(() => backend.held.includes('a'), { what: 'the lookup reached the backend' });
    backend.release('a');
    await waitFor(() => backend.held.includes('w'), { what: 'the first write reached the backend' });
    backend.release('w');
    await waitFor(() => backend.held.includes('b'), { what: 'the second write reached the backend' });

    await killHard();
    child = await startChildApp(env);
    // The resumed run asks the model again; killed while it waits, the run resumes a second time.
    await waitFor(() => llm.requests.length === 3, { what: 'the resumed run called the model', timeoutMs: 60_000 });
    await killHard();
    child = await startChildApp(env);
    const run = await succeeded(id);
    expect(run.outputs).toEqual({ answer: 'The write may or may not have happened.' });
    expect(llm.requests).toHaveLength(4);
    expect(backend.hits.filter((hit) => hit.path === '/lookup')).toHaveLength(1);
    expect(backend.hits.filter((hit) => hit.path === '/write').map((hit) => hit.params.id)).toEqual(['w']);
    expect(backend.held).toEqual(['b']);
    const llmNode = run.nodes.filter((node) => node.node_id === 'llm-1');
    expect(llmNode).toHaveLength(1);
    expect(llmNode[0].tool_calls.map((call) => [call.call_id, call.status])).toEqual([
      ['call_lookup', 'success'],
      ['call_written', 'success'],
      ['call_write', 'unknown_outcome'],
    ]);
    const writes = (await api<LogPage>('/tools/write/logs')).items.filter((log) => log.run_id === id);
    expect(writes.map((log) => [log.call_id, log.status]).sort()).toEqual([
      ['call_write', 'unknown_outcome'],
      ['call_written', 'success'],
    ]);
    const written = writes.find((log) => log.call_id === 'call_written');
    expect(JSON.parse(written?.input ?? '')).toEqual({ id: 'w' });
    expect(JSON.parse(written?.output ?? '')).toEqual({ path: '/write', id: 'w' });
    expect((await api<{ use_count: number }>('/tools/write')).use_count).toBe(2);
    expect((await api<{ use_count: number }>('/tools/lookup')).use_count).toBe(1);
    const messages = (llm.requests[3].body as { messages: Message[] }).messages;
    const toolMessages = messages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['call_lookup', 'call_written', 'call_write']);
    expect(toolMessages[2].content).toMatch(/outcome of this call is unknown.*not\s+repeated/s);
  });

  it('should have the log of a tool node that finished before the crash', async () => {
    const env = llmEnv(llm, { DATABASE_URL: database.url });
    child = await startChildApp(env);
    await api('/tools', {
      method: 'POST',
      body: httpToolBody('record', `${backend.origin}/record?id={id}`, { effect: 'mutating' }),
    });
    llm.script([reply.hang(), reply.text('Recorded.')]);
    const definition = agentWorkflow(
      {},
      {
        nodes: [
          { id: 'start', type: 'start', data: {} },
          { id: 'tool-1', type: 'tool', data: { tool: 'record', arguments: { id: 'tn' } } },
          { id: 'llm-1', type: 'llm', data: { prompt: 'Say what was recorded: {{tool-1.output}}' } },
          { id: 'end', type: 'end', data: { outputs: { answer: '{{llm-1.output}}' } } },
        ],
        edges: [
          { source: 'start', target: 'tool-1' },
          { source: 'tool-1', target: 'llm-1' },
          { source: 'llm-1', target: 'end' },
        ],
      },
    );
    const { id } = await api<{ id: string }>('/workflow-runs', {
      method: 'POST',
      body: { definition, inputs: { question: 'Record.' } },
    });
    // The tool node finished (its output is checkpointed) and the LLM node after it waits for the model.
    await waitFor(() => llm.requests.length === 1, { what: 'the LLM node called the model' });

    await killHard();
    child = await startChildApp(env);
    const run = await succeeded(id);
    expect(run.outputs).toEqual({ answer: 'Recorded.' });
    expect(backend.hits.filter((hit) => hit.path === '/record')).toHaveLength(1);
    const toolNode = run.nodes.filter((node) => node.node_id === 'tool-1');
    expect(toolNode.map((node) => node.tool_calls.map((call) => [call.call_id, call.status]))).toEqual([
      [['tool-1-call', 'success']],
    ]);
    const logs = (await api<LogPage>('/tools/record/logs')).items.filter((log) => log.run_id === id);
    expect(logs.map((log) => [log.call_id, log.status])).toEqual([['tool-1-call', 'success']]);
    expect((await api<{ use_count: number }>('/tools/record')).use_count).toBe(1);
  });
});
