import type { DataSource, Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import { loadConfig } from '../config/app-config';
import { ShutdownGrace } from '../config/shutdown-grace';
import type { ProviderRegistry } from '../llm/provider-registry';
import type { RunQueriesService } from '../runs/run-queries.service';
import type { RunSupervisor } from '../runs/run-supervisor';
import type { RunsService } from '../runs/runs.service';
import type { RunStarter } from '../workflow/execution/run-starter.service';
import type { WorkflowVersionsService } from '../workflow/workflow-versions.service';
import type { ReplayService } from './replay.service';
import { TestCaseRunner } from './test-case-runner';
import { TestRunHeartbeat } from './test-run-heartbeat';
import { TestRunEntity } from './test-run.entity';
import { TestRunsService } from './test-runs.service';
import type { TestRunOptions } from './test-run-options';
import type { TestSuitesService } from './test-suites.service';
import { entityDataSource } from '../../test/support/entity-data-source';

const PRINCIPAL = { userId: 'user', role: 'admin' } as unknown as Principal;
const OPTIONS: TestRunOptions = { concurrency: 1, budgets: {} };

describe(TestRunsService.name, () => {
  let dataSource: DataSource;

  beforeEach(async () => {
    dataSource = await entityDataSource([TestRunEntity]);
  });

  afterEach(() => dataSource.destroy());

  /**
   * A suite of one case whose run cannot start (the case fails), or never ends with `runner`; `testRuns` stores the
   * test runs.
   */
  const createSut = (
    testRuns: Repository<TestRunEntity>,
    grace = new ShutdownGrace(10),
    runner = { startStored: () => Promise.reject(new Error('no model')) } as unknown as RunStarter,
  ) => {
    const config = loadConfig({ RUN_DB_RETRY_MS: '0' });
    const suites = {
      find: () =>
        Promise.resolve({
          workflow: { id: 'workflow', version: 1, definition: {} },
          suite: { id: 'suite', cases: [{ name: 'first', inputs: {}, assertions: [] }] },
        }),
    } as unknown as TestSuitesService;
    return new TestRunsService(
      testRuns,
      suites,
      {} as WorkflowVersionsService,
      new TestCaseRunner(
        runner,
        {} as RunsService,
        {} as RunQueriesService,
        {} as ReplayService,
        {} as RunSupervisor,
        {} as ProviderRegistry,
      ),
      new TestRunHeartbeat(dataSource.getRepository(TestRunEntity), config),
      config,
      grace,
    );
  };

  /** The repository, whose write of a test run's end (the one with `comparison`) fails. */
  const failingEndWrite = (): Repository<TestRunEntity> => {
    const repository = dataSource.getRepository(TestRunEntity);
    const update = repository.update.bind(repository);
    return Object.assign(Object.create(repository) as Repository<TestRunEntity>, {
      update: (criteria: never, patch: Record<string, unknown>) =>
        'comparison' in patch ? Promise.reject(new Error('disk full')) : update(criteria, patch as never),
    });
  };

  it('should end the test run with the reason when its final write fails, in the background', async () => {
    const sut = createSut(failingEndWrite());

    const started = await sut.start('workflow', OPTIONS, PRINCIPAL, false);
    await sut.beforeApplicationShutdown();

    const row = await dataSource.getRepository(TestRunEntity).findOneByOrFail({ id: started.id });
    expect(started.status).toBe('running');
    expect(row.status).toBe('failed');
    expect(row.error).toBe('the test run could not be completed: disk full');
    expect(row.finishedAt).not.toBeNull();
    expect(row.results.map((result) => result.name)).toEqual(['first']);
  });

  it('should end the test run with the reason and answer the failure when it was waited for', async () => {
    const sut = createSut(failingEndWrite());

    await expect(sut.start('workflow', OPTIONS, PRINCIPAL, true)).rejects.toThrow('disk full');

    const [row] = await dataSource.getRepository(TestRunEntity).find();
    expect(row.status).toBe('failed');
    expect(row.error).toBe('the test run could not be completed: disk full');
  });

  it('should end the test run as usual, with no error, when its writes succeed', async () => {
    const sut = createSut(dataSource.getRepository(TestRunEntity));

    const ended = await sut.start('workflow', OPTIONS, PRINCIPAL, true);

    expect(ended).toMatchObject({ status: 'failed', error: null, progress: { done: 1, total: 1 } });
    expect(ended.results[0].error).toBe('no model');
  });

  it('should end the test runs left as interrupted when the grace period ends, using it up for later hooks', async () => {
    const grace = new ShutdownGrace(10_000);
    const never = { startStored: () => new Promise(() => undefined) } as unknown as RunStarter;
    const sut = createSut(dataSource.getRepository(TestRunEntity), grace, never);
    const started = await sut.start('workflow', OPTIONS, PRINCIPAL, false);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      let drained = false;

      const draining = sut.beforeApplicationShutdown().then(() => (drained = true));
      await jest.advanceTimersByTimeAsync(10_000);
      await draining;

      expect(drained).toBe(true);
      expect(grace.remainingMs).toBe(0);
    } finally {
      jest.useRealTimers();
    }
    const row = await dataSource.getRepository(TestRunEntity).findOneByOrFail({ id: started.id });
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/^interrupted: /);
  });
});
