import { type ChildApp, callChildApp, queryDatabase, stopChildApp } from '../support/child-app';
import { OpenAITestServer, reply, type RecordedRequest } from '../support/openai-test-server';
import { QueueDeployment } from '../support/queue-deployment';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY } from '../support/test-app';
import { describeWithRedis } from '../support/test-redis';
import { startToolBackend, type ToolBackend } from '../support/tool-backend';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

// Every process is compiled at its start, three of them at once: slow on a busy machine.
jest.setTimeout(600_000);

interface RunBody {
  id: string;
  status: string;
  outputs: Record<string, unknown> | null;
  pending_approvals?: Array<{ id: string; call_id: string; tool: string; arguments: Record<string, unknown> }>;
}

const call = (target: ChildApp, path: string, init: { method?: string; body?: unknown } = {}) =>
  callChildApp<RunBody>(target, path, init);

/** Two api processes and one worker with a single run slot, on one database and one Redis. */
describeWithRedis()('Human approval in queue mode: api and worker processes (e2e)', () => {
  const tool = 'wipe_queue';
  let llm: OpenAITestServer;
  let deployment: QueueDeployment;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    deployment = await QueueDeployment.create(llm, { MAX_CONCURRENT_RUNS: '1', RUN_LEASE_MS: '3000' });
    await deployment.start('api', 'api');
    await deployment.start('worker');
    const created = await call(deployment.processes[0], '/tools', {
      method: 'POST',
      body: {
        name: tool,
        description: 'Wipes a target',
        function_schema: {
          name: tool,
          description: 'Wipes a target',
          parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
        },
        implementation_type: 'code',
        implementation_config: { language: 'javascript', code: 'return { received: args };' },
        effect: 'dangerous',
      },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await deployment?.close();
    await llm?.close();
  });

  it('should free the worker’s only slot while a run waits, and finish the run on the worker after a decision made on another api process', async () => {
    const [first, second] = deployment.processes;
    llm.script([
      reply.toolCalls([{ name: tool, id: 'call_0', arguments: { target: 'db' } }]),
      reply.text('Meanwhile.'),
      reply.text('Wiped with care.'),
    ]);

    const waiting = await call(first, '/workflow-runs?wait=true', {
      method: 'POST',
      body: { definition: agentWorkflow({ tools: [tool] }), inputs: { question: 'Wipe.' } },
    });
    expect(waiting).toMatchObject({ status: 202, body: { status: 'waiting' } });
    const [approval] = waiting.body.pending_approvals ?? [];
    expect(approval).toMatchObject({ call_id: 'call_0', tool });

    // The worker has one slot: a second run only finishes if the waiting one does not hold it.
    const other = await call(first, '/workflow-runs?wait=true', {
      method: 'POST',
      body: { definition: agentWorkflow({}), inputs: { question: 'Other?' } },
    });
    expect(other).toMatchObject({ status: 200, body: { status: 'succeeded', outputs: { answer: 'Meanwhile.' } } });

    const decided = await call(second, `/runs/${waiting.body.id}/approvals/${approval.id}`, {
      method: 'POST',
      body: { decision: 'approve', arguments: { target: 'db-copy' } },
    });
    expect(decided.status).toBe(200);
    const again = await call(second, `/runs/${waiting.body.id}/approvals/${approval.id}`, {
      method: 'POST',
      body: { decision: 'reject' },
    });
    expect(again.status).toBe(409);

    let finished: RunBody | undefined;
    await waitFor(
      async () => {
        finished = (await call(first, `/runs/${waiting.body.id}`)).body;
        return finished.status === 'succeeded';
      },
      { what: 'the approved run finished on the worker', intervalMs: 100 },
    );
    expect(finished?.outputs).toEqual({ answer: 'Wiped with care.' });
    const told = llm.requests[2].body.messages as Array<{ role: string; content: string }>;
    expect(JSON.parse(told.find((message) => message.role === 'tool')?.content ?? '')).toEqual({
      received: { target: 'db-copy' },
    });
    const { events } = await readRunEvents(first.url, waiting.body.id, ADMIN_KEY);
    const names = events.map((event) => event.event);
    expect(names).toEqual(expect.arrayContaining(['approval.requested', 'approval.resolved', 'run.finished']));
    // The worker resumed the run it had executed, after another process added approval.resolved to its log.
    const after = names.slice(names.indexOf('approval.resolved'));
    expect(after.slice(0, 2)).toEqual(['approval.resolved', 'tool.result']);
    expect(after).toContain('llm.delta');
    expect(after.at(-1)).toBe('run.finished');
    expect(names.filter((name) => name === 'run.started')).toHaveLength(1);
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
  });
});

/** The question of a recorded model request and the tool message it carries, if any. */
const conversation = (recorded: RecordedRequest) => {
  const messages = recorded.body.messages as Array<{ role: string; content: string }>;
  return {
    question: messages.find((message) => message.role === 'user')?.content ?? '',
    toolMessage: messages.find((message) => message.role === 'tool')?.content,
  };
};

/** Every process of the deployment stopped while runs wait, then new ones started: the runs finish on those. */
describeWithRedis()('Human approval in queue mode across a restart of every process (e2e)', () => {
  const tool = 'wipe_remote';
  const comment = 'Not staging, not on a Friday.';
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let deployment: QueueDeployment;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    backend = await startToolBackend();
    deployment = await QueueDeployment.create(llm, {
      MAX_CONCURRENT_RUNS: '1',
      RUN_LEASE_MS: '3000',
      SHUTDOWN_GRACE_MS: '5000',
    });
  });

  afterAll(async () => {
    await deployment?.close();
    await backend?.close();
    await llm?.close();
  });

  it('should keep two waiting runs through a restart of the api and every worker, and finish them after an edited approval and a rejection decided on the new api', async () => {
    // Each run asks to wipe what its question names, then answers once the conversation holds the tool's answer.
    llm.script(
      Array.from({ length: 4 }, () =>
        reply.from((recorded) => {
          const { question, toolMessage } = conversation(recorded);
          if (toolMessage !== undefined) return reply.text(`Answered ${question}`);
          return reply.toolCalls([{ name: tool, id: 'call_0', arguments: { target: question } }]);
        }),
      ),
    );
    const [oldApi, ...oldWorkers] = await deployment.start('api', 'worker', 'worker');
    const created = await call(oldApi, '/tools', {
      method: 'POST',
      body: httpToolBody(tool, `${backend.origin}/wipe?target={target}`, {
        effect: 'dangerous',
        parameters: {
          type: 'object',
          properties: { target: { type: 'string' } },
          required: ['target'],
          additionalProperties: false,
        },
      }),
    });
    expect(created.status).toBe(201);
    const startWaiting = async (question: string) => {
      const response = await call(oldApi, '/workflow-runs?wait=true', {
        method: 'POST',
        body: { definition: agentWorkflow({ tools: [tool] }), inputs: { question } },
      });
      expect(response).toMatchObject({ status: 202, body: { status: 'waiting' } });
      return response.body.id;
    };
    const edited = await startWaiting('prod');
    const rejected = await startWaiting('staging');

    await stopChildApp(oldWorkers[0], 'SIGKILL');
    const stopped = await Promise.all([stopChildApp(oldApi, 'SIGTERM'), stopChildApp(oldWorkers[1], 'SIGTERM')]);
    expect(stopped).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    const stored = await queryDatabase<{ id: string; status: string }>(
      deployment.database.url,
      'SELECT id, status FROM runs WHERE id IN (?, ?) ORDER BY id',
      [edited, rejected],
    );
    expect(stored.map((row) => row.status)).toEqual(['waiting', 'waiting']);
    expect(backend.hits).toEqual([]);

    const [api] = await deployment.start('api', 'worker');
    const pendingOf = async (id: string) => {
      const run = await call(api, `/runs/${id}`);
      expect(run.body.status).toBe('waiting');
      expect(run.body.pending_approvals).toHaveLength(1);
      return (run.body.pending_approvals ?? [])[0];
    };
    const editedApproval = await pendingOf(edited);
    expect(editedApproval).toMatchObject({ tool, call_id: 'call_0', arguments: { target: 'prod' } });
    const rejectedApproval = await pendingOf(rejected);

    const decisions = await Promise.all([
      call(api, `/runs/${edited}/approvals/${editedApproval.id}`, {
        method: 'POST',
        body: { decision: 'approve', arguments: { target: 'prod-copy' } },
      }),
      call(api, `/runs/${rejected}/approvals/${rejectedApproval.id}`, {
        method: 'POST',
        body: { decision: 'reject', comment },
      }),
    ]);
    expect(decisions.map((decision) => decision.status)).toEqual([200, 200]);

    for (const id of [edited, rejected]) {
      await waitFor(async () => !['waiting', 'running'].includes((await call(api, `/runs/${id}`)).body.status), {
        what: `run ${id} ended`,
        timeoutMs: 60_000,
        intervalMs: 200,
      });
    }
    expect((await call(api, `/runs/${edited}`)).body).toMatchObject({
      status: 'succeeded',
      outputs: { answer: 'Answered prod' },
    });
    expect((await call(api, `/runs/${rejected}`)).body).toMatchObject({
      status: 'succeeded',
      outputs: { answer: 'Answered staging' },
    });
    // The approved call ran once, with the edited arguments; the rejected one never ran.
    expect(backend.hits.map((hit) => [hit.path, hit.params])).toEqual([['/wipe', { target: 'prod-copy' }]]);
    const toolMessages = Object.fromEntries(
      llm.requests
        .map(conversation)
        .flatMap(({ question, toolMessage }) => (toolMessage === undefined ? [] : [[question, toolMessage]])),
    );
    expect(JSON.parse(toolMessages.prod)).toEqual({ path: '/wipe', target: 'prod-copy' });
    expect(toolMessages.staging).toContain(comment);
    expect(llm.requests).toHaveLength(4);

    for (const [id, decision] of [
      [edited, 'approve'],
      [rejected, 'reject'],
    ] as const) {
      const { status, events } = await readRunEvents(api.url, id, ADMIN_KEY);
      expect(status).toBe(200);
      expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
      expect(events.filter((event) => event.event.startsWith('approval.'))).toEqual([
        expect.objectContaining({ event: 'approval.requested', data: expect.objectContaining({ call_id: 'call_0' }) }),
        expect.objectContaining({ event: 'approval.resolved', data: expect.objectContaining({ decision }) }),
      ]);
      expect(events.at(-1)).toMatchObject({ event: 'run.finished', data: { status: 'succeeded' } });
    }
  });
});
