import request from 'supertest';
import { sleep } from '../../src/shared/sleep';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, bearer, startTestApp, throwawayDatabase, type TestApp } from '../support/test-app';
import { type RunBody, WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

interface PendingApproval {
  id: string;
  node_id: string;
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  requested_at: string;
}
type WaitingRun = RunBody & { pending_approvals: PendingApproval[] };

/** A dangerous code tool that answers with exactly the arguments it received. */
const wipeTool = (name: string) => ({
  name,
  description: 'Wipes a target',
  function_schema: {
    type: 'function',
    function: {
      name,
      description: 'Wipes a target',
      parameters: {
        type: 'object',
        properties: { target: { type: 'string' }, count: { type: 'integer', minimum: 1 }, api_key: { type: 'string' } },
        required: ['target'],
        additionalProperties: false,
      },
    },
  },
  implementation_type: 'code',
  implementation_config: { language: 'javascript', code: 'return { received: args };' },
  effect: 'dangerous',
});

/** What the model was told for each tool call in request `requestIndex`, by call id. */
const toolAnswers = (llm: OpenAITestServer, requestIndex: number): Record<string, string> => {
  const messages = llm.requests[requestIndex].body.messages as Array<{
    role: string;
    tool_call_id?: string;
    content: string;
  }>;
  const answers: Record<string, string> = {};
  for (const message of messages) if (message.role === 'tool') answers[message.tool_call_id ?? ''] = message.content;
  return answers;
};

describe('Human approval of tool calls (e2e)', () => {
  let llm: OpenAITestServer;
  let sut: TestApp;
  let alice: WorkflowApi;
  let bob: WorkflowApi;
  let admin: WorkflowApi;
  const tool = `wipe_${Date.now().toString(36)}`;
  const workflow = () => agentWorkflow({ tools: [tool] });

  /** Starts a run whose model calls `calls` of the wipe tool in one turn (then answers `finalAnswer`) and waits (?wait=true) until it waits. */
  const startWaiting = async (calls: Array<Record<string, unknown>>, finalAnswer?: string): Promise<WaitingRun> => {
    llm.script([
      reply.toolCalls(calls.map((args, index) => ({ name: tool, id: `call_${index}`, arguments: args }))),
      ...(finalAnswer === undefined ? [] : [reply.text(finalAnswer)]),
    ]);
    const response = await alice.runInline(workflow(), { question: 'Wipe it.' }, true).expect(202);
    return response.body as WaitingRun;
  };

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    sut = await startTestApp(llmEnv(llm));
    alice = new WorkflowApi(sut.http, await sut.createUserKey('alice'));
    bob = new WorkflowApi(sut.http, await sut.createUserKey('bob'));
    admin = new WorkflowApi(sut.http, ADMIN_KEY);
    await alice.createTool(wipeTool(tool));
  });

  afterAll(async () => {
    await sut?.close();
    await llm?.close();
  });

  it('should default requires_approval to true for a dangerous tool, and keep what PATCH sets', async () => {
    const name = `other_${Date.now().toString(36)}`;
    const created = await alice.createTool(wipeTool(name));
    expect(created.body).toMatchObject({ effect: 'dangerous', requires_approval: true });

    const key = await sut.createUserKey('alice');
    await request(sut.http)
      .patch(`/api/v1/tools/${name}`)
      .set(bearer(key))
      .send({ requires_approval: false })
      .expect(200);

    expect((await alice.get(`/tools/${name}`).expect(200)).body).toMatchObject({ requires_approval: false });
    expect((await alice.get(`/tools/${name}/versions/2`).expect(200)).body).toMatchObject({ requires_approval: false });
  });

  it('should answer ?wait=true as soon as the run waits, with the pending call (credentials masked) and its event', async () => {
    const run = await startWaiting([{ target: 'db', api_key: 'sk-live-secret' }]);

    expect(run.status).toBe('waiting');
    // The model call that asked is counted while the run waits.
    expect(run.usage).toMatchObject({ model_calls: 1 });
    expect((await alice.get(`/runs/${run.id}`).expect(200)).body).toMatchObject({ usage: { model_calls: 1 } });
    expect(run.pending_approvals).toEqual([
      {
        id: expect.any(String) as string,
        node_id: 'llm-1',
        call_id: 'call_0',
        tool,
        arguments: { target: 'db', api_key: '********' },
        requested_at: expect.any(String) as string,
      },
    ]);

    const cancelled = await alice.post(`/runs/${run.id}/cancel`).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    const { events } = await readRunEvents(sut.http, run.id, ADMIN_KEY);
    const requested = events.find((message) => message.event === 'approval.requested');
    expect(requested?.data).toMatchObject({
      approval_id: run.pending_approvals[0].id,
      call_id: 'call_0',
      tool,
      arguments: { target: 'db', api_key: '********' },
    });
    expect(JSON.stringify(events)).not.toContain('sk-live-secret');
    expect(events.at(-1)).toMatchObject({
      event: 'run.finished',
      data: expect.objectContaining({ status: 'cancelled' }),
    });
  });

  it('should list pending approvals of the caller’s runs only (all for an admin), and drop a cancelled run’s', async () => {
    const run = await startWaiting([{ target: 'cache' }]);
    const approvalId = run.pending_approvals[0].id;

    const mine = await alice.get('/approvals?status=pending&page_size=100').expect(200);
    const theirs = await bob.get('/approvals?status=pending').expect(200);
    const everyone = await admin.get('/approvals?status=pending&page_size=100').expect(200);

    const ids = (body: { items: Array<{ id: string }> }) => body.items.map((item) => item.id);
    expect(ids(mine.body as { items: Array<{ id: string }> })).toContain(approvalId);
    expect(mine.body).toMatchObject({ page: 1, page_size: 100 });
    expect(theirs.body).toMatchObject({ items: [], total: 0 });
    expect(ids(everyone.body as { items: Array<{ id: string }> })).toContain(approvalId);

    const cancelled = await alice.post(`/runs/${run.id}/cancel`).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', pending_approvals: [] });
    const after = await alice.get('/approvals?status=pending&page_size=100').expect(200);
    expect(ids(after.body as { items: Array<{ id: string }> })).not.toContain(approvalId);
    await alice.post(`/runs/${run.id}/approvals/${approvalId}`, { decision: 'approve' }).expect(409);
  });

  it('should name the workflow and version of each listed approval (null for an inline run)', async () => {
    const definition = workflow();
    const saved = await alice.post('/workflows', definition).expect(201);
    const { id: workflowId, version } = saved.body as { id: string; version: number };
    llm.script([reply.toolCalls([{ name: tool, id: 'call_0', arguments: { target: 'logs' } }])]);
    const stored = await alice.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Wipe.' } });
    llm.script([reply.toolCalls([{ name: tool, id: 'call_0', arguments: { target: 'tmp' } }])]);
    const inline = (await alice.runInline(definition, { question: 'Wipe.' }, true).expect(202)).body as WaitingRun;
    const storedRun = stored.body as WaitingRun;

    const listed = await alice.get('/approvals?status=pending&page_size=100').expect(200);
    const items = (listed.body as { items: Array<{ run_id: string }> }).items;
    expect(items.find((item) => item.run_id === storedRun.id)).toMatchObject({
      workflow_id: workflowId,
      workflow_name: definition.name,
      workflow_version: version,
    });
    expect(items.find((item) => item.run_id === inline.id)).toMatchObject({
      workflow_id: null,
      workflow_name: definition.name,
      workflow_version: null,
    });
    await alice.post(`/runs/${storedRun.id}/cancel`).expect(200);
    await alice.post(`/runs/${inline.id}/cancel`).expect(200);
  });

  it('should run an approved call with the model’s arguments and finish the run', async () => {
    const run = await startWaiting([{ target: 'logs', count: 2 }], 'Wiped the logs.');
    const requestsBefore = llm.requests.length;

    const decided = await alice
      .post(`/runs/${run.id}/approvals/${run.pending_approvals[0].id}`, { decision: 'approve' })
      .expect(200);
    expect(decided.body).toMatchObject({ id: run.id, pending_approvals: [] });

    const finished = await alice.waitForRun(run.id);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { answer: 'Wiped the logs.' } });
    expect(JSON.parse(toolAnswers(llm, requestsBefore).call_0)).toEqual({ received: { target: 'logs', count: 2 } });
    const [call] = ((await alice.getRun(run.id)).nodes ?? []).flatMap((node) => node.tool_calls);
    expect(call.arguments).toEqual({ target: 'logs', count: 2 });
    expect(call).not.toHaveProperty('model_arguments');
    const { events } = await readRunEvents(sut.http, run.id, ADMIN_KEY);
    const names = events.map((message) => message.event);
    expect(names.indexOf('approval.requested')).toBeLessThan(names.indexOf('approval.resolved'));
    expect(names.filter((name) => name === 'run.started')).toHaveLength(1);
    expect(events.map((message) => Number(message.id))).toEqual(events.map((_message, index) => index + 1));
  });

  it('should not count the time a run waits for a person against its timeout_ms', async () => {
    llm.script([
      reply.toolCalls([{ name: tool, id: 'call_0', arguments: { target: 'cache' } }]),
      reply.text('Wiped the cache.'),
    ]);
    const definition = agentWorkflow({ tools: [tool] }, { timeout_ms: 1000 });
    const response = await alice.runInline(definition, { question: 'Wipe it.' }, true).expect(202);
    const run = response.body as WaitingRun;
    expect(run.status).toBe('waiting');

    await sleep(1500);
    await alice.post(`/runs/${run.id}/approvals/${run.pending_approvals[0].id}`, { decision: 'approve' }).expect(200);

    expect(await alice.waitForRun(run.id)).toMatchObject({
      status: 'succeeded',
      stop_reason: 'completed',
      budgets: { timeout_ms: 1000 },
      outputs: { answer: 'Wiped the cache.' },
    });
  });

  it('should run the tool with exactly the edited arguments, refusing invalid ones with 422 naming the field', async () => {
    const run = await startWaiting([{ target: 'users', count: 5 }], 'Wiped tmp.');
    const path = `/runs/${run.id}/approvals/${run.pending_approvals[0].id}`;
    const requestsBefore = llm.requests.length;

    const invalid = await alice
      .post(path, { decision: 'approve', arguments: { target: 'users', count: 0 } })
      .expect(422);
    expect(invalid.body).toMatchObject({ errors: [expect.objectContaining({ field: 'arguments.count' })] });
    await alice.post(path, { decision: 'approve', arguments: { target: 'tmp' } }).expect(200);

    await alice.waitForRun(run.id);
    expect(JSON.parse(toolAnswers(llm, requestsBefore).call_0)).toEqual({ received: { target: 'tmp' } });
    // The run record shows what ran, and the model's arguments with who replaced them and when.
    const detail = await alice.getRun(run.id);
    expect(detail).toMatchObject({ workflow_name: expect.stringMatching(/^agent-/) });
    const [call] = (detail.nodes ?? []).flatMap((node) => node.tool_calls);
    expect(call).toMatchObject({
      arguments: { target: 'tmp' },
      model_arguments: { target: 'users', count: 5 },
      edited_by: 'user-1',
      edited_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('should tell the model a rejected call was rejected with the comment verbatim, record it as rejected and go on', async () => {
    const run = await startWaiting([{ target: 'prod' }], 'I will not wipe prod.');
    const path = `/runs/${run.id}/approvals/${run.pending_approvals[0].id}`;
    const requestsBefore = llm.requests.length;
    const comment = 'Never prod — use "staging" instead.';

    await bob.post(path, { decision: 'reject', comment }).expect(404);
    await alice.post(`/runs/${run.id}/approvals/${crypto.randomUUID()}`, { decision: 'reject' }).expect(404);
    await alice.post(path, { decision: 'reject', comment }).expect(200);
    await alice.post(path, { decision: 'approve' }).expect(409);

    const finished = await alice.waitForRun(run.id);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { answer: 'I will not wipe prod.' } });
    expect(toolAnswers(llm, requestsBefore).call_0).toContain(comment);
    expect(toolAnswers(llm, requestsBefore).call_0).toMatch(/rejected by a person/);
    expect(finished.nodes?.find((node) => node.node_id === 'llm-1')?.tool_calls).toEqual([
      expect.objectContaining({ call_id: 'call_0', status: 'rejected' }),
    ]);
  });

  describe('a tool node', () => {
    /** start → a direct call of the wipe tool with the run's target → end with what the call gave. */
    const toolNodeWorkflow = () => ({
      name: 'direct-wipe',
      inputs: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
      nodes: [
        { id: 'start', type: 'start', data: {} },
        { id: 'wipe', type: 'tool', data: { tool, arguments: { target: '{{inputs.target}}' } } },
        {
          id: 'end',
          type: 'end',
          data: { outputs: { status: '{{wipe.status}}', output: '{{wipe.output}}' } },
        },
      ],
      edges: [
        { source: 'start', target: 'wipe' },
        { source: 'wipe', target: 'end' },
      ],
    });

    const startToolNodeRun = async (target: string): Promise<WaitingRun> => {
      const response = await alice.runInline(toolNodeWorkflow(), { target }, true).expect(202);
      return response.body as WaitingRun;
    };

    it('should wait for a person before a direct call of a tool that requires approval, then run the edited call', async () => {
      const run = await startToolNodeRun('prod');

      expect(run).toMatchObject({ status: 'waiting' });
      expect(run.pending_approvals).toEqual([
        expect.objectContaining({ node_id: 'wipe', call_id: 'wipe-call', tool, arguments: { target: 'prod' } }),
      ]);
      await alice
        .post(`/runs/${run.id}/approvals/${run.pending_approvals[0].id}`, {
          decision: 'approve',
          arguments: { target: 'staging' },
        })
        .expect(200);

      const finished = await alice.waitForRun(run.id);
      expect(finished).toMatchObject({ status: 'succeeded', outputs: { status: 'success' } });
      expect(JSON.parse(String((finished.outputs as { output: string }).output))).toEqual({
        received: { target: 'staging' },
      });
    });

    it('should not count the time the node waits for a person against the run timeout_ms', async () => {
      const definition = { ...toolNodeWorkflow(), timeout_ms: 1000 };
      const run = (await alice.runInline(definition, { target: 'tmp' }, true).expect(202)).body as WaitingRun;
      expect(run.status).toBe('waiting');

      await sleep(1500);
      await alice.post(`/runs/${run.id}/approvals/${run.pending_approvals[0].id}`, { decision: 'approve' }).expect(200);

      expect(await alice.waitForRun(run.id)).toMatchObject({ status: 'succeeded', outputs: { status: 'success' } });
    });

    it('should give the node status rejected with the comment when the direct call is rejected, and go on', async () => {
      const run = await startToolNodeRun('prod');
      const comment = 'Not on a Friday.';

      await alice
        .post(`/runs/${run.id}/approvals/${run.pending_approvals[0].id}`, { decision: 'reject', comment })
        .expect(200);

      const finished = await alice.waitForRun(run.id);
      expect(finished).toMatchObject({ status: 'succeeded', outputs: { status: 'rejected' } });
      expect((finished.outputs as { output: string }).output).toContain(comment);
      expect((finished.outputs as { output: string }).output).not.toContain('received');
    });
  });

  it('should let an admin decide on another user’s run', async () => {
    const run = await startWaiting([{ target: 'queue' }], 'Wiped the queue.');

    await admin.post(`/runs/${run.id}/approvals/${run.pending_approvals[0].id}`, { decision: 'approve' }).expect(200);

    expect(await alice.waitForRun(run.id)).toMatchObject({ status: 'succeeded' });
  });
});

describe('Human approval across a restart (e2e)', () => {
  let llm: OpenAITestServer;
  let database: { url: string; drop: () => Promise<void> };
  let second: TestApp | undefined;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    database = await throwawayDatabase();
  });

  afterAll(async () => {
    await second?.close();
    await llm?.close();
    await database?.drop();
  });

  it('should keep a waiting run through a full restart and finish it after approve, edit and reject decided on the new process', async () => {
    const tool = 'wipe_restart';
    llm.script([
      reply.toolCalls([
        { name: tool, id: 'call_0', arguments: { target: 'a' } },
        { name: tool, id: 'call_1', arguments: { target: 'b', count: 3 } },
        { name: tool, id: 'call_2', arguments: { target: 'c' } },
      ]),
      reply.text('Two wiped, one refused.'),
    ]);
    const first = await startTestApp(llmEnv(llm), { databaseUrl: database.url });
    const key = await first.createUserKey('carol');
    const before = new WorkflowApi(first.http, key);
    await before.createTool(wipeTool(tool));
    const waiting = (await before.runInline(agentWorkflow({ tools: [tool] }), { question: 'Wipe.' }, true).expect(202))
      .body as WaitingRun;
    expect(waiting.status).toBe('waiting');
    expect(waiting.pending_approvals.map((approval) => approval.call_id)).toEqual(['call_0', 'call_1', 'call_2']);
    await first.close();

    second = await startTestApp(llmEnv(llm), { databaseUrl: database.url });
    const after = new WorkflowApi(second.http, key);
    const stored = (await after.getRun(waiting.id)) as WaitingRun;
    expect(stored.status).toBe('waiting');
    const [approve, edit, reject] = stored.pending_approvals;
    await after.post(`/runs/${waiting.id}/approvals/${approve.id}`, { decision: 'approve' }).expect(200);
    await after
      .post(`/runs/${waiting.id}/approvals/${edit.id}`, { decision: 'approve', arguments: { target: 'B' } })
      .expect(200);
    expect((await after.getRun(waiting.id)).status).toBe('waiting');
    await after
      .post(`/runs/${waiting.id}/approvals/${reject.id}`, { decision: 'reject', comment: 'Keep c.' })
      .expect(200);

    const finished = await after.waitForRun(waiting.id);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { answer: 'Two wiped, one refused.' } });
    const answers = toolAnswers(llm, 1);
    expect(JSON.parse(answers.call_0)).toEqual({ received: { target: 'a' } });
    expect(JSON.parse(answers.call_1)).toEqual({ received: { target: 'B' } });
    expect(answers.call_2).toContain('Keep c.');
    expect(llm.requests).toHaveLength(2);
  });
});
