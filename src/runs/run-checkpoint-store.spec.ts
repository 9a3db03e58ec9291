import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { newRun } from '../../test/factories/run.factory';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { countStatements } from '../../test/support/statement-counter';
import { NodeRunEntity } from './node-run.entity';
import { RunCheckpointStore } from './run-checkpoint-store';
import { RunEventEntity } from './run-event.entity';
import { RunsService } from './runs.service';
import { NodeRunsService } from './node-runs.service';

describe(RunCheckpointStore.name, () => {
  let moduleRef: TestingModule;
  let runs: RunsService;
  let sut: RunCheckpointStore;

  beforeEach(async () => {
    moduleRef = await runsTestingModule([RunsService, NodeRunsService, RunCheckpointStore]);
    runs = moduleRef.get(RunsService);
    sut = moduleRef.get(RunCheckpointStore);
  });

  afterEach(() => moduleRef.close());

  it('should keep the last state saved for a run', async () => {
    const run = await runs.create(newRun());

    await expect(sut.load(run.id)).resolves.toBeNull();
    await sut.save(run.id, { nodes: { a: { step: 1 } } });
    await sut.save(run.id, { nodes: { a: { step: 2 } } });

    await expect(sut.load(run.id)).resolves.toEqual({ nodes: { a: { step: 2 } } });
  });

  it('should save a state alone in one statement, without a transaction around it', async () => {
    const run = await runs.create(newRun());
    await sut.save(run.id, { nodes: { a: { step: 1 } } });
    const counter = countStatements(moduleRef.get(DataSource));

    await sut.save(run.id, { nodes: { a: { step: 2 } } });

    counter.stop();
    expect(counter.statements).toHaveLength(1);
    await expect(sut.load(run.id)).resolves.toEqual({ nodes: { a: { step: 2 } } });
  });

  it('should store the node run end and the events of the step with the state', async () => {
    const run = await runs.create(newRun());
    const nodeRunId = await moduleRef.get(NodeRunsService).nodeStarted(run.id, { id: 'llm-1', type: 'llm' });
    const at = new Date().toISOString();

    await sut.save(
      run.id,
      { nodes: { 'llm-1': { output: { output: 'hi' } } } },
      {
        nodeFinished: { nodeRunId, status: 'succeeded', output: { output: 'hi' } },
        events: [{ seq: 1, type: 'node.finished', data: { node_id: 'llm-1' }, at }],
      },
    );

    const nodeRun = await moduleRef.get<Repository<NodeRunEntity>>(getRepositoryToken(NodeRunEntity)).findOneByOrFail({
      id: nodeRunId,
    });
    expect(nodeRun).toMatchObject({ status: 'succeeded', output: { output: 'hi' } });
    const events = await moduleRef.get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity)).findBy({
      runId: run.id,
    });
    expect(events.map((event) => [event.seq, event.type])).toEqual([[1, 'node.finished']]);
  });

  it("should store a node's end and then its node run's end, without a transaction", async () => {
    const run = await runs.create(newRun());
    const nodeRunId = await moduleRef.get(NodeRunsService).nodeStarted(run.id, { id: 'llm-1', type: 'llm' });
    const counter = countStatements(moduleRef.get(DataSource));

    await sut.save(
      run.id,
      { nodes: { 'llm-1': { output: { output: 'hi' } } } },
      { nodeFinished: { nodeRunId, status: 'succeeded', output: { output: 'hi' } } },
    );

    counter.stop();
    expect(counter.statements).toHaveLength(2);
    await expect(sut.load(run.id)).resolves.toEqual({ nodes: { 'llm-1': { output: { output: 'hi' } } } });
    const nodeRun = await moduleRef.get<Repository<NodeRunEntity>>(getRepositoryToken(NodeRunEntity)).findOneByOrFail({
      id: nodeRunId,
    });
    expect(nodeRun).toMatchObject({ status: 'succeeded', output: { output: 'hi' } });
  });

  it('should store nothing of a step whose writes fail: the state and the writes go together', async () => {
    const run = await runs.create(newRun());
    await sut.save(run.id, { nodes: {} });
    const at = new Date().toISOString();
    const duplicate = { seq: 1, type: 'run.started' as const, data: {}, at };

    await expect(sut.save(run.id, { nodes: { a: { step: 1 } } }, { events: [duplicate, duplicate] })).rejects.toThrow();

    await expect(sut.load(run.id)).resolves.toEqual({ nodes: {} });
  });
});
