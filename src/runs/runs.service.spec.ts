import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { adminPrincipal, newRun, userPrincipal } from '../../test/factories/run.factory';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { countStatements } from '../../test/support/statement-counter';
import { DomainError } from '../common/errors/domain-error';
import type { ToolCallRecord } from '../call-logs/call-record';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import type { RunNodeRef } from './run-definition';
import { RunEntity } from './run.entity';
import { RunsService } from './runs.service';
import { NodeRunsService } from './node-runs.service';
import { RunQueriesService } from './run-queries.service';

const node = (id: string, type = 'template'): RunNodeRef => ({ id, type });

const call = (runId: string, callId: string, overrides: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  toolId: 'tool-1',
  toolName: 'ping',
  toolVersion: 1,
  runId,
  nodeId: 'llm-1',
  callId,
  userId: 'user-1',
  input: '{"id":"a"}',
  output: 'pong',
  status: 'success',
  errorMessage: null,
  durationMs: 3,
  startedAt: new Date(),
  ...overrides,
});

describe(RunsService.name, () => {
  let moduleRef: TestingModule;
  let sut: RunsService;
  let nodeRuns: NodeRunsService;
  let queries: RunQueriesService;
  let runs: Repository<RunEntity>;

  beforeEach(async () => {
    moduleRef = await runsTestingModule([RunsService, NodeRunsService, RunQueriesService]);
    sut = moduleRef.get(RunsService);
    nodeRuns = moduleRef.get(NodeRunsService);
    queries = moduleRef.get(RunQueriesService);
    runs = moduleRef.get(getRepositoryToken(RunEntity));
  });

  afterEach(() => moduleRef.close());

  it('should store a new run as queued with empty usage', async () => {
    const created = await sut.create(newRun({ inputs: { question: 'Hi?' } }));

    const run = await queries.get(created.id, userPrincipal());
    expect(run).toMatchObject({
      id: created.id,
      status: 'queued',
      inputs: { question: 'Hi?' },
      outputs: null,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, model_calls: 0 },
      started_at: null,
      finished_at: null,
      nodes: [],
    });
  });

  it('should store a run that starts now as running, started when it was created', async () => {
    const created = await sut.create(newRun({ startsNow: true }));

    const run = await queries.get(created.id, userPrincipal());
    expect(run).toMatchObject({ status: 'running', started_at: run.created_at, finished_at: null });
    expect(created).toMatchObject({ status: 'running', startedAt: created.createdAt });
  });

  it('should close a node run left running whose node the checkpoint holds as finished, with its output', async () => {
    const created = await sut.create(newRun({ startsNow: true }));
    await nodeRuns.nodeStarted(created.id, node('llm-1', 'llm'));
    await nodeRuns.nodeStarted(created.id, node('llm-2', 'llm'));

    await nodeRuns.closeFinishedNodes(created.id, new Map([['llm-1', { output: 'hi' }]]));

    const run = await queries.get(created.id, adminPrincipal());
    expect((run.nodes ?? []).map((nodeRun) => [nodeRun.node_id, nodeRun.status, nodeRun.output])).toEqual([
      ['llm-1', 'succeeded', { output: 'hi' }],
      ['llm-2', 'running', null],
    ]);
  });

  it('should go on with a node run that ended while its output was not checkpointed, not with a failed one', async () => {
    const created = await sut.create(newRun({ startsNow: true }));
    const succeeded = await nodeRuns.nodeStarted(created.id, node('llm-1', 'llm'));
    await nodeRuns.nodeFinished(succeeded, { status: 'succeeded', output: { output: 'hi' } });
    const failed = await nodeRuns.nodeStarted(created.id, node('llm-2', 'llm'));
    await nodeRuns.nodeFinished(failed, { status: 'failed', error: 'boom' });

    await expect(nodeRuns.runningNodeRun(created.id, 'llm-1')).resolves.toBe(succeeded);
    await expect(nodeRuns.runningNodeRun(created.id, 'llm-2')).resolves.toBeNull();
  });

  it('should record the status transitions and node runs of a run', async () => {
    const created = await sut.create(newRun());
    await sut.markRunning(created.id);
    const nodeRunId = await nodeRuns.nodeStarted(created.id, node('start', 'start'));
    await nodeRuns.nodeFinished(nodeRunId, { status: 'succeeded', output: { inputs: {} } });
    await sut.finish(created.id, { status: 'succeeded', outputs: { answer: 42 } });

    const run = await queries.get(created.id, adminPrincipal());
    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 42 }, error: null });
    expect(run.started_at).not.toBeNull();
    expect(run.nodes).toEqual([
      expect.objectContaining({ node_id: 'start', node_type: 'start', status: 'succeeded', output: { inputs: {} } }),
    ]);
  });

  it('should answer a run that ended in this process from its copy, as get reads it back, with no statement', async () => {
    const logs = moduleRef.get(ToolCallLogsService);
    const created = await sut.create(newRun({ inputs: { question: 'Hi?' } }));
    queries.keepCopy(created);
    await sut.markRunning(created.id);
    const ended = { node: node('start', 'start'), startedAt: new Date(), finishedAt: new Date() };
    const nodeRunId = await nodeRuns.nodeStarted(created.id, node('llm-1', 'llm'), [
      { ...ended, result: { status: 'succeeded', output: { inputs: {} } } },
    ]);
    const startedAt = new Date();
    // The model's order (second, first) wins over the same start; the stored row masks and truncates.
    const calls = [
      call(created.id, 'second', { startedAt, input: '{"headers":{"Authorization":"Bearer secret-token"}}' }),
      call(created.id, 'first', { startedAt, output: 'x'.repeat(100_000), status: 'error', errorMessage: 'boom' }),
    ];
    for (const record of calls) logs.announce(record);
    await logs.insert(calls);
    const output = { output: 'done', tool_calls: [{ id: 'first' }, { id: 'second' }], offered_tools: [['ping']] };
    await nodeRuns.nodeFinished(nodeRunId, { status: 'succeeded', output });
    await sut.finish(created.id, {
      status: 'succeeded',
      outputs: { answer: 'done' },
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, model_calls: 1 },
    });
    const counter = countStatements(moduleRef.get(DataSource));

    const answer = queries.endedHere(created.id);

    counter.stop();
    expect(counter.statements).toEqual([]);
    const readBack = await queries.get(created.id, userPrincipal());
    expect(JSON.parse(JSON.stringify(answer))).toEqual(JSON.parse(JSON.stringify(readBack)));
    expect(readBack.nodes?.[1].tool_calls.map((logged) => logged.call_id)).toEqual(['first', 'second']);
    expect(queries.endedHere(created.id)).toBeNull();
  });

  it('should keep no answer for a run that has not ended, whose row changed in a way its copy does not follow, or whose copy was dropped', async () => {
    const running = await sut.create(newRun());
    queries.keepCopy(running);
    await sut.markRunning(running.id);
    const cancelled = await sut.create(newRun());
    queries.keepCopy(cancelled);
    await sut.markRunning(cancelled.id);

    const notExecuted = await sut.create(newRun());
    queries.keepCopy(notExecuted);

    await sut.cancelUnfinished(cancelled.id, 'cancelled by a person');
    await sut.finish(cancelled.id, { status: 'cancelled', error: 'cancelled by a person' });
    queries.forgetCopy(notExecuted.id);
    await sut.finish(notExecuted.id, { status: 'failed', error: 'x' });

    expect(queries.endedHere(running.id)).toBeNull();
    expect(queries.endedHere(cancelled.id)).toBeNull();
    expect(queries.endedHere(notExecuted.id)).toBeNull();
  });

  it('should hide a run from other users but not from admins', async () => {
    const created = await sut.create(newRun({ userId: 'owner' }));

    await expect(queries.get(created.id, userPrincipal('someone-else'))).rejects.toThrow(DomainError);
    await expect(queries.get(created.id, adminPrincipal())).resolves.toMatchObject({ id: created.id });
    const page = await queries.list({ page: 1, page_size: 10 }, userPrincipal('someone-else'));
    expect(page.total).toBe(0);
  });

  it('should retry a run write through a database outage', async () => {
    const created = await sut.create(newRun());
    const lost = Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
    const update = jest.spyOn(runs.manager, 'query').mockRejectedValueOnce(lost).mockRejectedValueOnce(lost);

    await sut.finish(created.id, { status: 'succeeded', outputs: { answer: 42 } });

    expect(update).toHaveBeenCalledTimes(3);
    await expect(queries.get(created.id, adminPrincipal())).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('should store the end of a run only while the worker that ends it holds its lease', async () => {
    const taken = await sut.create(newRun());
    const held = await sut.create(newRun());
    const leaseExpiresAt = new Date(Date.now() + 60_000);
    await runs.update({ id: taken.id }, { status: 'running', leaseOwner: 'worker-2', leaseExpiresAt });
    await runs.update({ id: held.id }, { status: 'running', leaseOwner: 'worker-1', leaseExpiresAt });

    const endedTaken = await sut.finish(taken.id, { status: 'succeeded', outputs: { answer: 1 } }, 'worker-1');
    const endedHeld = await sut.finish(held.id, { status: 'succeeded', outputs: { answer: 2 } }, 'worker-1');

    expect([endedTaken, endedHeld]).toEqual([false, true]);
    await expect(runs.findOneByOrFail({ id: taken.id })).resolves.toMatchObject({
      status: 'running',
      outputs: null,
      leaseOwner: 'worker-2',
    });
    await expect(runs.findOneByOrFail({ id: held.id })).resolves.toMatchObject({
      status: 'succeeded',
      outputs: { answer: 2 },
    });
  });

  it('should fail unfinished child runs with the reason and leave top-level and finished ones alone', async () => {
    const parent = await sut.create(newRun());
    await sut.markRunning(parent.id);
    const queuedChild = await sut.create(newRun({ parentRunId: parent.id, depth: 1 }));
    const runningChild = await sut.create(newRun({ parentRunId: parent.id, depth: 1 }));
    await sut.markRunning(runningChild.id);
    await nodeRuns.nodeStarted(runningChild.id, node('llm-1', 'llm'));
    const doneChild = await sut.create(newRun({ parentRunId: parent.id, depth: 1 }));
    await sut.finish(doneChild.id, { status: 'succeeded', outputs: {} });

    const ids = await sut.failUnfinishedChildren('interrupted');

    expect(ids.sort()).toEqual([queuedChild.id, runningChild.id].sort());
    for (const id of ids) {
      await expect(queries.get(id, adminPrincipal())).resolves.toMatchObject({
        status: 'failed',
        error: 'interrupted',
      });
    }
    const interrupted = await queries.get(runningChild.id, adminPrincipal());
    expect(interrupted.nodes?.[0]).toMatchObject({ status: 'failed', error: 'interrupted' });
    await expect(runs.findOneByOrFail({ id: parent.id })).resolves.toMatchObject({ status: 'running' });
    await expect(runs.findOneByOrFail({ id: doneChild.id })).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('should list the unfinished top-level runs, for resuming', async () => {
    const running = await sut.create(newRun());
    await sut.markRunning(running.id);
    const queued = await sut.create(newRun());
    await sut.create(newRun({ parentRunId: running.id, depth: 1 }));
    const done = await sut.create(newRun());
    await sut.finish(done.id, { status: 'failed', error: 'x' });

    expect((await sut.unfinishedTopLevel()).sort()).toEqual([running.id, queued.id].sort());
  });
});
