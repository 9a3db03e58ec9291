import { DataSource, type Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import { loadConfig } from '../config/app-config';
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

const PRINCIPAL = { userId: 'user', role: 'admin' } as unknown as Principal;
const OPTIONS: TestRunOptions = { concurrency: 1, budgets: {} };

describe(TestRunsService.name, () => {
  let dataSource: DataSource;

  beforeEach(async () => {
    dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [TestRunEntity],
      synchronize: true,
    }).initialize();
  });

  afterEach(() => dataSource.destroy());

  /** A suite of one case whose run cannot start (the case fails); `testRuns` stores the test runs. */
  const createSut = (testRuns: Repository<TestRunEntity>) => {
    const config = loadConfig({ RUN_DB_RETRY_MS: '0' });
    const suites = {
      find: () =>
        Promise.resolve({
          workflow: { id: 'workflow', version: 1, definition: {} },
          suite: { id: 'suite', cases: [{ name: 'first', inputs: {}, assertions: [] }] },
        }),
    } as unknown as TestSuitesService;
    const runner = { startStored: () => Promise.reject(new Error('no model')) } as unknown as RunStarter;
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
});
