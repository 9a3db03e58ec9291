import { createPinia, setActivePinia } from 'pinia';
import type { WorkflowResponse } from '../../console/src/api/types';
import { useWorkflowsStore } from '../../console/src/stores/workflows';

describe('useWorkflowsStore', () => {
  const realFetch = global.fetch;
  let sut: ReturnType<typeof useWorkflowsStore>;
  let calls: string[];

  const answer = (status: number, body: unknown) => {
    global.fetch = ((url: string, init: { method: string }) => {
      calls.push(`${init.method} ${url}`);
      return Promise.resolve(new Response(JSON.stringify(body), { status }));
    }) as typeof fetch;
  };

  beforeEach(() => {
    setActivePinia(createPinia());
    sut = useWorkflowsStore();
    calls = [];
  });
  afterEach(() => (global.fetch = realFetch));

  it('should read and compile the definition schema once', async () => {
    answer(200, { type: 'object', required: ['nodes'] });
    await sut.loadSchema();
    await sut.loadSchema();

    expect(calls).toEqual(['GET /api/v1/workflows/schema']);
    expect(sut.validate?.({})).toBe(false);
    expect(sut.validate?.({ nodes: [] })).toBe(true);
  });

  it('should read the schema again after a failed read', async () => {
    answer(503, { detail: 'database unavailable' });
    await expect(sut.loadSchema()).rejects.toThrow('database unavailable');
    answer(200, { type: 'object' });
    await sut.loadSchema();

    expect(calls).toEqual(['GET /api/v1/workflows/schema', 'GET /api/v1/workflows/schema']);
  });

  it('should name each field of a refused switch', async () => {
    answer(400, {
      detail: 'Invalid workflow',
      errors: [{ field: 'definition.nodes[1].data.tools[0]', message: 'no tool named gone' }],
    });
    const workflow = { id: 'w1', name: 'w', description: '', version: 3, definition: { nodes: [] } };

    expect(await sut.setEnabled(workflow as unknown as WorkflowResponse, true)).toEqual({
      ok: false,
      error: 'Invalid workflow: definition.nodes[1].data.tools[0] no tool named gone',
    });
  });
});
