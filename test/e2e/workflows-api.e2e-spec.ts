import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { type RunBody, WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

interface Problem {
  status: number;
  detail: string;
  errors?: Array<{ field: string; message: string }>;
}

interface WorkflowBody {
  id: string;
  name: string;
  version: number;
  definition: Record<string, unknown>;
}

type Definition = ReturnType<typeof agentWorkflow>;

const example = (path: string) =>
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', path), 'utf8')) as Record<string, unknown>;

const messagesOf = (body: unknown) =>
  ((body as Problem).errors ?? []).map((error) => `${error.field}: ${error.message}`);

describe('Workflows API (e2e)', () => {
  let app: TestApp;
  let llm: OpenAITestServer;
  let alice: WorkflowApi;
  let bob: WorkflowApi;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    app = await startTestApp(
      // The default wait limit (minutes): a ?wait=true run here never depends on how fast the machine is.
      llmEnv(llm, { LLM_PROVIDERS: JSON.stringify({ local: { base_url: llm.baseUrl } }) }),
    );
    alice = new WorkflowApi(app.http, await app.createUserKey('alice'));
    bob = new WorkflowApi(app.http, await app.createUserKey('bob'));
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await app?.close();
    await llm?.close();
  });

  it('should publish the definition JSON Schema', async () => {
    const response = await alice.get('/workflows/schema').expect(200);
    expect(response.body).toMatchObject({
      title: 'ToolFlow workflow definition',
      required: ['name', 'nodes', 'edges'],
    });
    // The committed copy editors name as "$schema" is the one served (npm run schema:workflow writes it).
    const committed = readFileSync(join(__dirname, '..', '..', 'schemas', 'workflow.schema.json'), 'utf8');
    expect(response.body).toEqual(JSON.parse(committed));
  });

  describe('CRUD', () => {
    it('should create, read, list, replace with a version bump and delete a workflow', async () => {
      const definition = agentWorkflow({});
      const created = await alice.post('/workflows', definition).expect(201);
      const workflow = created.body as WorkflowBody;
      expect(workflow).toMatchObject({ name: definition.name, version: 1, definition });

      await alice.get(`/workflows/${workflow.id}`).expect(200);
      await alice.get(`/workflows/${definition.name}`).expect(200);
      const listed = await alice.get(`/workflows?q=${definition.name}`).expect(200);
      expect((listed.body as { items: WorkflowBody[] }).items.map((item) => item.id)).toEqual([workflow.id]);

      const changed = { ...definition, description: 'second version' };
      const replaced = await alice.put(`/workflows/${workflow.id}`, changed).expect(200);
      expect(replaced.body).toMatchObject({ version: 2, description: 'second version' });

      await alice.delete(`/workflows/${workflow.id}`).expect(204);
      await alice.get(`/workflows/${workflow.id}`).expect(404);
    });

    it('should refuse a second workflow with the same name with 409', async () => {
      const definition = agentWorkflow({});
      await alice.post('/workflows', definition).expect(201);
      await alice.post('/workflows', definition).expect(409);
    });

    it("should hide a user's private workflow from other users", async () => {
      const created = await alice.post('/workflows', agentWorkflow({})).expect(201);
      const { id } = created.body as WorkflowBody;
      await bob.get(`/workflows/${id}`).expect(404);
      await bob.put(`/workflows/${id}`, agentWorkflow({})).expect(404);
      await bob.post(`/workflows/${id}/runs`, { inputs: { question: 'x' } }).expect(404);
    });
  });

  describe('validation', () => {
    const expectInvalid = async (definition: unknown, pattern: RegExp) => {
      const response = await alice.post('/workflows', definition).expect(400);
      expect(messagesOf(response.body)).toEqual(expect.arrayContaining([expect.stringMatching(pattern)]));
    };
    const withNodes = (change: (definition: Definition) => void): Definition => {
      const definition = structuredClone(agentWorkflow({}));
      change(definition);
      return definition;
    };

    it('should name the body or is_public when the wrapper itself is wrong, in either body shape', async () => {
      await expectInvalid([agentWorkflow({})], /^body: must be a workflow definition object$/);
      await expectInvalid({ ...agentWorkflow({}), is_public: 'yes' }, /^is_public: must be a boolean$/);
      await expectInvalid({ definition: agentWorkflow({}), is_public: 1 }, /^is_public: must be a boolean$/);
    });

    it('should name the wrapped definition field for a problem inside {definition}', async () => {
      await expectInvalid(
        { definition: withNodes((definition) => (definition.nodes[1].type = 'repeat')) },
        /^definition\.nodes\[1\]\(llm-1\)\.type.*allowed values/,
      );
    });

    it('should name the node of an unknown node type', async () => {
      await expectInvalid(
        withNodes((definition) => (definition.nodes[1].type = 'repeat')),
        /nodes\[1\]\(llm-1\)\.type.*allowed values/,
      );
    });

    it('should name the missing node of a dangling edge', async () => {
      await expectInvalid(
        withNodes((definition) => definition.edges.push({ source: 'llm-1', target: 'ghost' })),
        /edges\[2\]\.target.*"ghost"/,
      );
    });

    it('should refuse a cycle naming its nodes', async () => {
      const definition = withNodes((value) => {
        value.nodes.push({ id: 'again', type: 'template', data: { template: 'x' } as never });
        value.edges.push({ source: 'llm-1', target: 'again' }, { source: 'again', target: 'llm-1' });
      });
      await expectInvalid(definition, /cycle through nodes llm-1, again/);
    });

    it('should refuse a definition whose end cannot be reached', async () => {
      await expectInvalid(
        withNodes((definition) => definition.edges.pop()),
        /no end node is reachable|node "end" is not reachable/,
      );
    });

    it('should name the node that refers to a node that does not exist', async () => {
      await expectInvalid(
        withNodes((definition) => (definition.nodes[2].data = { outputs: { answer: '{{llm-2.output}}' } })),
        /nodes\[2\]\(end\).*there is no node "llm-2"; did you mean \{\{llm-1\.output\}\}/,
      );
    });

    it('should refuse a reference to a field the node cannot output with its JSON pointer and a suggestion', async () => {
      const definition = withNodes((value) => (value.nodes[2].data = { outputs: { answer: 'A: {{llm-1.txet}}' } }));
      const response = await alice.post('/workflows', { definition }).expect(400);
      expect((response.body as Problem).errors).toEqual([
        {
          field: 'definition.nodes[2](end).data.outputs.answer',
          pointer: '/definition/nodes/2/data/outputs/answer',
          message: expect.stringMatching(/^\{\{llm-1\.txet\}\}: llm node "llm-1" has no field "txet"; it has text, /),
          suggestion: '{{llm-1.text}}',
        },
      ]);
    });

    it('should save a reference to a deprecated output field and warn about it in the response', async () => {
      const response = await alice.post('/workflows', agentWorkflow({})).expect(201);
      expect((response.body as { warnings: unknown[] }).warnings).toEqual([
        expect.objectContaining({ pointer: '/nodes/2/data/outputs/answer', suggestion: '{{llm-1.text}}' }),
      ]);
    });

    it('should name the node that uses a tool that does not exist', async () => {
      await expectInvalid(agentWorkflow({ tools: ['no_such_tool'] }), /nodes\[1\]\(llm-1\)\.data\.tools.*no_such_tool/);
    });

    it('should name the node whose provider is not configured', async () => {
      await expectInvalid(
        agentWorkflow({ provider: 'nowhere' }),
        /nodes\[1\]\(llm-1\)\.data\.provider.*nowhere.*local/,
      );
    });

    it('should check inline definitions before anything runs', async () => {
      const response = await alice.runInline(agentWorkflow({ provider: 'nowhere' }), { question: 'x' }).expect(400);
      expect(messagesOf(response.body)).toEqual([expect.stringMatching(/^definition\.nodes\[1\]\(llm-1\)/)]);
      expect(llm.requests).toHaveLength(0);
      const runs = await alice.get('/runs').expect(200);
      expect((runs.body as { total: number }).total).toBe(0);
    });

    it('should refuse inputs that do not match the inputs schema', async () => {
      const response = await alice.runInline(agentWorkflow({}), { question: 42 }).expect(400);
      expect(messagesOf(response.body)).toEqual([expect.stringMatching(/^inputs\.question/)]);
    });
  });

  describe('runs', () => {
    it('should start a stored workflow with 202 and a Location, then finish it', async () => {
      llm.script([reply.text('Hello Alice.')]);
      const created = await alice.post('/workflows', agentWorkflow({})).expect(201);
      const { id: workflowId } = created.body as WorkflowBody;

      const started = await alice.post(`/workflows/${workflowId}/runs`, { inputs: { question: 'Hi?' } }).expect(202);
      const run = started.body as RunBody;
      expect(started.headers.location).toBe(`/api/v1/runs/${run.id}`);
      expect(run).toMatchObject({ workflow_id: workflowId });

      const finished = await alice.waitForRun(run.id);
      expect(finished).toMatchObject({ status: 'succeeded', outputs: { answer: 'Hello Alice.' } });
    });

    it('should block with ?wait=true and return the finished run with its node runs', async () => {
      llm.script([reply.text('Hello again.')]);
      const created = await alice
        .post('/workflows', agentWorkflow({ provider: 'local', model: 'local-model' }))
        .expect(201);
      const { id: workflowId } = created.body as WorkflowBody;

      const response = await alice
        .post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Hi?' } })
        .expect(200);

      expect(response.body).toMatchObject({ status: 'succeeded', outputs: { answer: 'Hello again.' }, error: null });
      expect((response.body as RunBody).nodes?.map((node) => node.node_id)).toEqual(['start', 'llm-1', 'end']);
      expect(llm.requests[0].headers.authorization).toBeUndefined();
    });

    it('should run tool, condition and template nodes and skip the branch not taken', async () => {
      await alice.createTool(example('tools/to_fahrenheit.json'));
      const definition = {
        name: 'branching',
        inputs: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
        nodes: [
          { id: 'start', type: 'start', data: {} },
          {
            id: 'convert',
            type: 'tool',
            data: { tool: 'to_fahrenheit', arguments: { celsius: '{{inputs.celsius}}' } },
          },
          {
            id: 'is-hot',
            type: 'condition',
            data: { conditions: [{ left: '{{convert.data.fahrenheit}}', op: 'greater_than', right: 80 }] },
          },
          { id: 'hot', type: 'template', data: { template: 'Hot: {{convert.data.fahrenheit}} °F' } },
          { id: 'mild', type: 'template', data: { template: 'Mild: {{convert.data.fahrenheit}} °F' } },
          { id: 'end', type: 'end', data: { outputs: { hot: '{{hot.output}}', mild: '{{mild.output}}' } } },
        ],
        edges: [
          { source: 'start', target: 'convert' },
          { source: 'convert', target: 'is-hot' },
          { source: 'is-hot', target: 'hot', condition: 'true' },
          { source: 'is-hot', target: 'mild', condition: 'false' },
          { source: 'hot', target: 'end' },
          { source: 'mild', target: 'end' },
        ],
      };

      const hot = await alice.run(definition, { celsius: 30 });
      const mild = await alice.run(definition, { celsius: 20 });

      // A whole reference to a node that was skipped has no value, so that output is left out.
      expect(hot).toMatchObject({ status: 'succeeded', outputs: { hot: 'Hot: 86 °F' } });
      expect(hot.outputs).not.toHaveProperty('mild');
      expect(mild).toMatchObject({ status: 'succeeded', outputs: { mild: 'Mild: 68 °F' } });
      expect(mild.nodes?.map((node) => node.node_id)).toEqual(['start', 'convert', 'is-hot', 'mild', 'end']);
      expect(mild.nodes?.[1].tool_calls).toEqual([
        expect.objectContaining({ tool_name: 'to_fahrenheit', status: 'success' }),
      ]);
      expect(llm.requests).toHaveLength(0);

      // A value the tool did not return fails the node with the reference and what was there, unless defaulted.
      const strict = structuredClone(definition);
      strict.nodes[3].data = { template: 'Hot: {{convert.data.kelvin}} K' };
      const failed = await alice.run(strict, { celsius: 30 });
      expect(failed).toMatchObject({ status: 'failed' });
      expect(failed.error).toMatch(
        /\{\{convert\.data\.kelvin\}\} has no value: convert\.data is \{"celsius":30,"fahrenheit":86\}, which has no "kelvin"/,
      );
      strict.nodes[3].data = { template: 'Hot: {{convert.data.kelvin ?? "unknown"}} K' };
      expect(await alice.run(strict, { celsius: 30 })).toMatchObject({ outputs: { hot: 'Hot: unknown K' } });
    });

    it('should run an inline definition without storing it', async () => {
      llm.script([reply.text('Inline.')]);
      const run = await alice.run(agentWorkflow({}));
      expect(run).toMatchObject({ status: 'succeeded', workflow_id: null, outputs: { answer: 'Inline.' } });
      const workflows = await alice.get('/workflows').expect(200);
      expect((workflows.body as { items: unknown[] }).items.map((item) => (item as WorkflowBody).id)).not.toContain(
        run.id,
      );
    });

    it('should list only the caller’s runs, filtered and paginated', async () => {
      llm.script([reply.text('Bob 1.'), reply.error(400, 'bad request')]);
      const succeeded = await bob.run(agentWorkflow({}));
      const failed = await bob.run(agentWorkflow({}));

      const all = await bob.get('/runs?page_size=1').expect(200);
      expect(all.body).toMatchObject({ total: 2, page: 1, page_size: 1 });
      expect((all.body as { items: RunBody[] }).items.map((run) => run.id)).toEqual([failed.id]);
      const onlyFailed = await bob.get('/runs?status=failed').expect(200);
      expect((onlyFailed.body as { items: RunBody[] }).items.map((run) => run.id)).toEqual([failed.id]);
      await alice.get(`/runs/${succeeded.id}`).expect(404);
      await bob.get('/runs?status=sleeping').expect(400);
    });
  });

  describe('with one run slot and a one-second wait limit', () => {
    let limited: TestApp;
    let heldLlm: OpenAITestServer;
    let carol: WorkflowApi;

    beforeAll(async () => {
      heldLlm = await OpenAITestServer.start();
      limited = await startTestApp(llmEnv(heldLlm, { MAX_CONCURRENT_RUNS: '1', RUN_WAIT_TIMEOUT_MS: '1000' }));
      carol = new WorkflowApi(limited.http, await limited.createUserKey('carol'));
    });

    afterEach(() => heldLlm.reset());

    afterAll(async () => {
      await limited?.close();
      await heldLlm?.close();
    });

    it('should answer 202 when ?wait=true outlasts the wait limit', async () => {
      heldLlm.script([reply.text('Late.')]);
      const release = heldLlm.hold();
      try {
        const response = await carol.runInline(agentWorkflow({}), { question: 'Hi?' }).expect(202);
        const run = response.body as RunBody;
        expect(run.status).toBe('running');
        release();
        expect(await carol.waitForRun(run.id)).toMatchObject({ status: 'succeeded', outputs: { answer: 'Late.' } });
      } finally {
        release();
      }
    });

    it('should keep a second run queued until the first one finishes', async () => {
      heldLlm.script([reply.text('First.'), reply.text('Second.')]);
      const release = heldLlm.hold();
      try {
        const first = (await carol.runInline(agentWorkflow({}), { question: 'one' }, false).expect(202))
          .body as RunBody;
        await carol.waitForRun(first.id, (run) => run.status === 'running');
        const second = (await carol.runInline(agentWorkflow({}), { question: 'two' }, false).expect(202))
          .body as RunBody;

        expect((await carol.getRun(second.id)).status).toBe('queued');
        release();

        const [firstDone, secondDone] = [await carol.waitForRun(first.id), await carol.waitForRun(second.id)];
        expect(firstDone).toMatchObject({ status: 'succeeded', outputs: { answer: 'First.' } });
        expect(secondDone).toMatchObject({ status: 'succeeded', outputs: { answer: 'Second.' } });
        // Held until release, the first run cannot have finished before the second one was seen queued: had the
        // second started at once, it would have started before the first finished.
        expect(Date.parse(secondDone.started_at as string)).toBeGreaterThanOrEqual(
          Date.parse(firstDone.finished_at as string),
        );
        expect(heldLlm.requests.map((recorded) => JSON.stringify(recorded.body))).toEqual([
          expect.stringContaining('"content":"one"'),
          expect.stringContaining('"content":"two"'),
        ]);
      } finally {
        release();
      }
    });
  });
});
