import request from 'supertest';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { restartFixture } from '../support/restart-fixture';
import type { ToolBackend } from '../support/tool-backend';
import { WorkflowApi, type RunBody } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

// One test starts the application twice: on a loaded machine each start can take well over ten seconds.
jest.setTimeout(120_000);

type PinnedRun = RunBody & { tool_versions: Record<string, number> | null };

interface LogPage {
  items: Array<{ run_id: string | null; tool_version: number | null; status: string }>;
}

/** The http tool `name` calling `/<path>?id=…` on the backend, described as `description`. */
const pathTool = (name: string, backend: ToolBackend, path: string, description: string) => {
  const body = httpToolBody(name, `${backend.origin}/${path}?id={id}`);
  const schema = body.function_schema as { function: Record<string, unknown> };
  return {
    ...body,
    description,
    category: 'lookups',
    function_schema: { ...schema, function: { ...schema.function, description } },
  };
};

/** The description of tool `name` in the tools list of a recorded model request. */
const offeredDescription = (body: Record<string, unknown>, name: string) =>
  (body.tools as Array<{ function: { name: string; description: string } }>).find((tool) => tool.function.name === name)
    ?.function.description;

describe('Tool versions pinned by a run (e2e)', () => {
  describe('in one process', () => {
    let stack: WorkflowStack;
    let api: WorkflowApi;

    beforeAll(async () => {
      stack = await startWorkflowStack();
      api = new WorkflowApi(stack.app.http, ADMIN_KEY);
    });

    afterAll(async () => {
      await stack.close();
    });

    it('should finish a run with the versions it started with while the tool is edited, and start the next on the new one', async () => {
      const { llm, backend } = stack;
      await api.createTool(pathTool('lookup', backend, 'first', 'Looks up, first edition'));
      await api.createTool(pathTool('other_lookup', backend, 'other', 'Another lookup'));
      const workflow = agentWorkflow({ tools: ['lookup', { category: 'lookups' }] });
      await api.post('/workflows', { definition: workflow }).expect(201);
      llm.script([
        reply.toolCalls([{ name: 'lookup', arguments: { id: 'a' } }]),
        reply.toolCalls([{ name: 'lookup', arguments: { id: 'b' } }]),
        reply.text('Done.'),
      ]);
      const release = llm.hold();
      const started = await api.post(`/workflows/${workflow.name}/runs`, { inputs: { question: 'Look?' } }).expect(202);
      const { id } = started.body as { id: string };
      expect((started.body as PinnedRun).tool_versions).toEqual({ lookup: 1, other_lookup: 1 });
      await api.waitForRun(id, () => llm.requests.length === 1);

      await api.put('/tools/lookup', pathTool('lookup', backend, 'second', 'Looks up, second edition')).expect(200);
      await api.put('/tools/other_lookup', pathTool('other_lookup', backend, 'other2', 'Edited')).expect(200);
      release();
      const run = (await api.waitForRun(id)) as PinnedRun;

      expect(run).toMatchObject({ status: 'succeeded', tool_versions: { lookup: 1, other_lookup: 1 } });
      expect(backend.hits.map((hit) => [hit.path, hit.params.id])).toEqual([
        ['/first', 'a'],
        ['/first', 'b'],
      ]);
      expect(llm.requests.map((recorded) => offeredDescription(recorded.body, 'lookup'))).toEqual([
        'Looks up, first edition',
        'Looks up, first edition',
        'Looks up, first edition',
      ]);
      expect(offeredDescription(llm.requests[2].body, 'other_lookup')).toBe('Another lookup');
      const logs = (await api.get('/tools/lookup/logs').expect(200)).body as LogPage;
      expect(logs.items.map((log) => [log.run_id, log.tool_version])).toEqual([
        [id, 1],
        [id, 1],
      ]);

      llm.reset();
      backend.hits.length = 0;
      llm.script([reply.toolCalls([{ name: 'lookup', arguments: { id: 'c' } }]), reply.text('Done again.')]);
      const next = (
        await api.post(`/workflows/${workflow.name}/runs?wait=true`, { inputs: { question: 'Look?' } }).expect(200)
      ).body as PinnedRun;

      expect(next).toMatchObject({ status: 'succeeded', tool_versions: { lookup: 2, other_lookup: 2 } });
      expect(backend.hits.map((hit) => hit.path)).toEqual(['/second']);
      expect(offeredDescription(llm.requests[0].body, 'lookup')).toBe('Looks up, second edition');
    });

    it('should run a tool node on its pinned version when the tool is edited before the node starts', async () => {
      const { llm, backend } = stack;
      llm.reset();
      backend.hits.length = 0;
      await api.createTool(pathTool('direct', backend, 'old', 'Direct, old'));
      const definition = {
        name: 'agent-then-tool',
        nodes: [
          { id: 'start', type: 'start', data: {} },
          { id: 'llm-1', type: 'llm', data: { prompt: 'Hi' } },
          { id: 'call', type: 'tool', data: { tool: 'direct', arguments: { id: 'x' } } },
          { id: 'end', type: 'end', data: { outputs: { answer: '{{call.output}}' } } },
        ],
        edges: [
          { source: 'start', target: 'llm-1' },
          { source: 'llm-1', target: 'call' },
          { source: 'call', target: 'end' },
        ],
      };
      llm.script([reply.text('Go on.')]);
      const release = llm.hold();
      const started = await api.runInline(definition, {}, false).expect(202);
      const { id } = started.body as { id: string };
      await api.waitForRun(id, () => llm.requests.length === 1);

      await api.put('/tools/direct', pathTool('direct', backend, 'new', 'Direct, new')).expect(200);
      release();
      const run = (await api.waitForRun(id)) as PinnedRun;

      expect(run).toMatchObject({ status: 'succeeded', tool_versions: { direct: 1 } });
      expect(backend.hits.map((hit) => hit.path)).toEqual(['/old']);
    });
  });

  describe('across a restart', () => {
    const restart = restartFixture();

    it('should resume a run on the versions it pinned, in a process that never saw its start', async () => {
      const { llm, backend } = restart;
      llm.script([
        reply.toolCalls([{ name: 'lookup', arguments: { id: 'before' } }]),
        reply.text('Never delivered.', { delayMs: 60_000 }),
        reply.toolCalls([{ name: 'lookup', arguments: { id: 'after' } }]),
        reply.text('Done after the restart.'),
      ]);
      const first = await restart.startFirst();
      const before = new WorkflowApi(first.http, ADMIN_KEY);
      await before.createTool(pathTool('lookup', backend, 'first', 'Looks up, first edition'));
      const started = await before
        .runInline(agentWorkflow({ tools: ['lookup', '*'] }), { question: 'Look?' }, false)
        .expect(202);
      const { id } = started.body as { id: string };
      await before.waitForRun(id, () => llm.requests.length === 2);
      await request(first.http)
        .put('/api/v1/tools/lookup')
        .set(bearer(ADMIN_KEY))
        .send(pathTool('lookup', backend, 'second', 'Looks up, second edition'))
        .expect(200);
      await first.app.close();

      const second = await restart.startSecond();
      const after = new WorkflowApi(second.http, ADMIN_KEY);
      const run = (await after.waitForRun(id)) as PinnedRun;

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Done after the restart.' } });
      expect(run.tool_versions?.lookup).toBe(1);
      expect(backend.hits.map((hit) => [hit.path, hit.params.id])).toEqual([
        ['/first', 'before'],
        ['/first', 'after'],
      ]);
      expect(offeredDescription(llm.requests[2].body, 'lookup')).toBe('Looks up, first edition');
      const logs = (await after.get('/tools/lookup/logs').expect(200)).body as LogPage;
      expect(logs.items.map((log) => log.tool_version)).toEqual([1, 1]);
    });
  });
});
