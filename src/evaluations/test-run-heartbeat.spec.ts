import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { type AppConfig, loadConfig } from '../config/app-config';
import { interruptedReason, MISSED_HEARTBEATS, TestRunHeartbeat } from './test-run-heartbeat';
import { TestRunEntity } from './test-run.entity';
import { entityDataSource } from '../../test/support/entity-data-source';

const HEARTBEAT_MS = 1000;
const NOW = new Date('2026-12-05T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

describe(TestRunHeartbeat.name, () => {
  let dataSource: DataSource;
  const config: AppConfig = loadConfig({ TEST_RUN_HEARTBEAT_MS: String(HEARTBEAT_MS) });

  beforeEach(async () => {
    dataSource = await entityDataSource([TestRunEntity]);
  });

  afterEach(() => dataSource.destroy());

  const repository = () => dataSource.getRepository(TestRunEntity);
  const createSut = () => new TestRunHeartbeat(repository(), config);
  const storeTestRun = async (id: string, fields: Partial<TestRunEntity>) => {
    const row: TestRunEntity = {
      id,
      suiteId: 'suite',
      workflowId: 'workflow',
      workflowVersion: 1,
      status: 'running',
      summary: { cases: 2, passed: 1, failed: 0, total_tokens: 5, duration_ms: 10, cost: null },
      results: [
        {
          name: 'first',
          passed: true,
          run_id: 'run-1',
          run_status: 'succeeded',
          replayed: false,
          divergence: null,
          error: null,
          assertions: [],
          total_tokens: 5,
          duration_ms: 10,
          cost: null,
        },
      ],
      comparison: null,
      previousTestRunId: null,
      userId: 'user',
      createdAt: ago(60_000),
      finishedAt: null,
      owner: 'other-process',
      heartbeatAt: null,
      error: null,
      ...fields,
    };
    await repository().insert(row as QueryDeepPartialEntity<TestRunEntity>);
  };
  const stored = async (id: string) => repository().findOneByOrFail({ id });

  it('should end a running test run whose heartbeat is stale as interrupted, keeping its ended cases', async () => {
    const lastBeat = ago(MISSED_HEARTBEATS * HEARTBEAT_MS + 1);
    await storeTestRun('stale', { heartbeatAt: lastBeat });

    const ended = await createSut().sweep(NOW);

    const row = await stored('stale');
    expect(ended).toEqual(['stale']);
    expect(row.status).toBe('failed');
    expect(row.error).toBe(interruptedReason(lastBeat));
    expect(row.error).toBe('interrupted: the process running it stopped at 2026-12-05T11:59:56.999Z');
    expect(row.finishedAt).toEqual(NOW);
    expect(row.results.map((result) => result.name)).toEqual(['first']);
    expect(row.summary.cases).toBe(2);
  });

  it('should leave a running test run whose heartbeat is live', async () => {
    await storeTestRun('live', { heartbeatAt: ago(MISSED_HEARTBEATS * HEARTBEAT_MS - 1) });

    const ended = await createSut().sweep(NOW);

    expect(ended).toEqual([]);
    expect((await stored('live')).status).toBe('running');
    expect((await stored('live')).error).toBeNull();
  });

  it('should end a running test run stored without a heartbeat (before heartbeats existed)', async () => {
    await storeTestRun('old', { heartbeatAt: null, owner: null });

    expect(await createSut().sweep(NOW)).toEqual(['old']);
    expect((await stored('old')).error).toBe(interruptedReason(ago(60_000)));
  });

  it('should leave ended test runs as they ended', async () => {
    await storeTestRun('passed', { status: 'passed', heartbeatAt: ago(600_000), finishedAt: ago(500_000) });

    expect(await createSut().sweep(NOW)).toEqual([]);
    expect((await stored('passed')).status).toBe('passed');
  });

  it('should keep the test runs it holds live, so that another process sweeping does not end them', async () => {
    const sut = createSut();
    await storeTestRun('mine', { owner: sut.owner, heartbeatAt: ago(600_000) });
    await storeTestRun('theirs', { heartbeatAt: ago(600_000) });
    sut.hold('mine');

    await sut.beat(NOW);
    const ended = await createSut().sweep(NOW);

    expect(ended).toEqual(['theirs']);
    expect((await stored('mine')).status).toBe('running');
    expect((await stored('mine')).heartbeatAt).toEqual(NOW);
  });

  it('should end a test run early once, with its reason', async () => {
    await storeTestRun('failing', { heartbeatAt: NOW });
    const sut = createSut();

    const first = await sut.endEarly('failing', 'the test run could not be completed: disk full');
    const second = await sut.endEarly('failing', 'something else');

    expect([first, second]).toEqual([true, false]);
    expect((await stored('failing')).error).toBe('the test run could not be completed: disk full');
  });
});
