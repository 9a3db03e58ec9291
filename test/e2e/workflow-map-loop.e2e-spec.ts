import { type ChildApp, queryDatabase, startChildApp } from '../support/child-app';
import { OpenAITestServer } from '../support/openai-test-server';
import { ADMIN_KEY, throwawayDatabase } from '../support/test-app';
import { startToolBackend, type ToolBackend } from '../support/tool-backend';
import { waitFor } from '../support/wait-for';
import { httpToolBody, llmEnv } from '../support/workflow-fixtures';

interface RunBody {
  status: string;
  error: string | null;
  outputs: Record<string, unknown> | null;
  nodes: Array<{ node_id: string; status: string; output: Record<string, unknown> | null }>;
}

const ITEMS = 50;
const CONCURRENCY = 5;
/** Items answered (and so checkpointed) before the kill. */
const DONE_BEFORE_KILL = 20;

// Each start compiles the app in a process of its own.
jest.setTimeout(240_000);

describe('Map and loop nodes (e2e, child processes on MariaDB)', () => {
  let backend: ToolBackend;
  let llm: OpenAITestServer;
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

  const ended = async (id: string): Promise<RunBody> => {
    await waitFor(async () => !['queued', 'running'].includes((await api<RunBody>(`/runs/${id}`)).status), {
      what: 'the run ended',
      timeoutMs: 60_000,
    });
    return api<RunBody>(`/runs/${id}`);
  };

  const killHard = async () => {
    child?.process.kill('SIGKILL');
    await child?.exited;
  };

  /** The items of map node `nodeId` that the run's stored checkpoint holds as ended. */
  const checkpointedItems = async (runId: string, nodeId: string): Promise<number> => {
    const rows = await queryDatabase<{ state: unknown }>(
      database.url,
      'SELECT state FROM run_checkpoints WHERE run_id = ?',
      [runId],
    );
    const state = (typeof rows[0]?.state === 'string' ? JSON.parse(rows[0].state) : rows[0]?.state) as
      { nodes?: Record<string, { step?: { items?: Record<string, unknown> } }> } | undefined;
    return Object.keys(state?.nodes?.[nodeId]?.step?.items ?? {}).length;
  };

  /** Calls per item id at the backend (an answer into a killed process's closed connection counts too). */
  const callsPerItem = (): Map<string, number> => {
    const calls = new Map<string, number>();
    for (const hit of backend.hits.filter((candidate) => candidate.path === '/lookup')) {
      calls.set(hit.params.id, (calls.get(hit.params.id) ?? 0) + 1);
    }
    return calls;
  };

  beforeAll(async () => {
    backend = await startToolBackend();
    llm = await OpenAITestServer.start();
    database = await throwawayDatabase();
    child = await startChildApp(llmEnv(llm, { DATABASE_URL: database.url }));
    await api('/tools', { method: 'POST', body: httpToolBody('lookup', `${backend.origin}/lookup?id={id}`) });
  });

  afterAll(async () => {
    await killHard();
    backend.releaseAll();
    await backend.close();
    await llm.close();
    await database.drop();
  });

  it(`should resume a map over ${ITEMS} items after kill -9 without calling the tool again for an item that ended`, async () => {
    const items = Array.from({ length: ITEMS }, (_value, index) => `i${index}`);
    const definition = {
      name: 'map-crash',
      inputs: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' } } } },
      nodes: [
        { id: 'start', type: 'start', data: {} },
        {
          id: 'each',
          type: 'map',
          data: {
            items: '{{inputs.ids}}',
            concurrency: CONCURRENCY,
            nodes: [
              { id: 'item-start', type: 'start', data: {} },
              { id: 'fetch', type: 'tool', data: { tool: 'lookup', arguments: { id: '{{item}}' } } },
              { id: 'item-end', type: 'end', data: { outputs: { id: '{{fetch.data.id}}', index: '{{item_index}}' } } },
            ],
            edges: [
              { source: 'item-start', target: 'fetch' },
              { source: 'fetch', target: 'item-end' },
            ],
          },
        },
        { id: 'end', type: 'end', data: { outputs: { ids: '{{each.output}}', count: '{{each.count}}' } } },
      ],
      edges: [
        { source: 'start', target: 'each' },
        { source: 'each', target: 'end' },
      ],
    };
    backend.hold();
    const { id } = await api<{ id: string }>('/workflow-runs', {
      method: 'POST',
      body: { definition, inputs: { ids: items } },
    });
    // Items start in order, but their calls may reach the backend a little out of order: the ones released are
    // whichever arrived first, so the test remembers them rather than assume the first DONE_BEFORE_KILL items.
    const released: string[] = [];
    while (released.length < DONE_BEFORE_KILL) {
      await waitFor(() => backend.held.length > 0, { what: `item call ${released.length} reached the backend` });
      released.push(backend.held[0]);
      backend.release(backend.held[0]);
    }
    await waitFor(async () => (await checkpointedItems(id, 'each')) === DONE_BEFORE_KILL, {
      what: `${DONE_BEFORE_KILL} items checkpointed`,
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    await waitFor(() => backend.held.length === CONCURRENCY, { what: `${CONCURRENCY} item calls in flight` });
    const inFlight = [...backend.held];

    await killHard();
    backend.releaseAll();
    child = await startChildApp(llmEnv(llm, { DATABASE_URL: database.url }));
    const run = await ended(id);

    expect(run.status).toBe('succeeded');
    expect(run.outputs).toEqual({ ids: items.map((item, index) => ({ id: item, index })), count: ITEMS });
    const calls = callsPerItem();
    const repeated = items.filter((item) => (calls.get(item) ?? 0) > 1);
    // Every item ran; only those in flight at the kill ran twice; none that ended before it ran again.
    expect(items.filter((item) => (calls.get(item) ?? 0) === 0)).toEqual([]);
    expect(repeated.sort()).toEqual([...inFlight].sort());
    expect(released.filter((item) => calls.get(item) !== 1)).toEqual([]);
    const map = run.nodes.filter((node) => node.node_id === 'each');
    expect(map).toHaveLength(1);
    expect((map[0].output?.items as unknown[]).length).toBe(ITEMS);
    process.stdout.write(
      `map resume: ${ITEMS} items, concurrency ${CONCURRENCY}: ${DONE_BEFORE_KILL} checkpointed before kill -9, ` +
        `${inFlight.length} in flight, ${repeated.length} called again after the restart, ` +
        `${items.slice(0, DONE_BEFORE_KILL).filter((item) => calls.get(item) !== 1).length} finished items repeated\n`,
    );
  });

  const loopWorkflow = (name: string, maxIterations: number, conditions: unknown[]) => ({
    name,
    nodes: [
      { id: 'start', type: 'start', data: {} },
      {
        id: 'again',
        type: 'loop',
        data: {
          max_iterations: maxIterations,
          conditions,
          nodes: [
            { id: 'turn-start', type: 'start', data: {} },
            { id: 'fetch', type: 'tool', data: { tool: 'lookup', arguments: { id: `${name}-{{iteration}}` } } },
            { id: 'turn-end', type: 'end', data: { outputs: { id: '{{fetch.data.id}}', turn: '{{iteration}}' } } },
          ],
          edges: [
            { source: 'turn-start', target: 'fetch' },
            { source: 'fetch', target: 'turn-end' },
          ],
        },
      },
      {
        id: 'end',
        type: 'end',
        data: { outputs: { last: '{{again.output}}', count: '{{again.count}}', why: '{{again.stop_reason}}' } },
      },
    ],
    edges: [
      { source: 'start', target: 'again' },
      { source: 'again', target: 'end' },
    ],
  });

  it('should stop a loop when its condition no longer holds', async () => {
    const definition = loopWorkflow('until', 10, [{ left: '{{last.id}}', op: 'not_equals', right: 'until-2' }]);
    const { id } = await api<{ id: string }>('/workflow-runs', { method: 'POST', body: { definition } });
    const run = await ended(id);
    expect(run.status).toBe('succeeded');
    expect(run.outputs).toEqual({ last: { id: 'until-2', turn: 2 }, count: 3, why: 'condition' });
    expect(backend.hits.filter((hit) => hit.params.id?.startsWith('until-')).map((hit) => hit.params.id)).toEqual([
      'until-0',
      'until-1',
      'until-2',
    ]);
  });

  it('should stop a loop at max_iterations while its condition still holds', async () => {
    const definition = loopWorkflow('capped', 4, [{ left: '{{last.id}}', op: 'starts_with', right: 'capped' }]);
    const { id } = await api<{ id: string }>('/workflow-runs', { method: 'POST', body: { definition } });
    const run = await ended(id);
    expect(run.status).toBe('succeeded');
    expect(run.outputs).toEqual({ last: { id: 'capped-3', turn: 3 }, count: 4, why: 'max_iterations' });
    const loop = run.nodes.find((node) => node.node_id === 'again');
    expect((loop?.output?.iterations as Array<{ status: string }>).map((iteration) => iteration.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
  });

  it('should refuse a map node whose nested graph refers to a node that does not exist, naming it', async () => {
    const response = await fetch(`${child?.url}/api/v1/workflows`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'map-broken',
        definition: {
          name: 'map-broken',
          nodes: [
            { id: 'start', type: 'start', data: {} },
            {
              id: 'each',
              type: 'map',
              data: {
                items: [1, 2],
                nodes: [
                  { id: 'item-start', type: 'start', data: {} },
                  { id: 'say', type: 'template', data: { template: '{{item}} {{nowhere.output}}' } },
                  { id: 'item-end', type: 'end', data: {} },
                ],
                edges: [
                  { source: 'item-start', target: 'say' },
                  { source: 'say', target: 'item-end' },
                ],
              },
            },
            { id: 'end', type: 'end', data: {} },
          ],
          edges: [
            { source: 'start', target: 'each' },
            { source: 'each', target: 'end' },
          ],
        },
      }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('nodes[1](each).data.nodes[1](say).data');
  });
});
