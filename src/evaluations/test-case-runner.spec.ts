import type { Principal } from '../common/auth/principal';
import type { ProviderRegistry } from '../llm/provider-registry';
import type { RunQueriesService } from '../runs/run-queries.service';
import type { RunSupervisor } from '../runs/run-supervisor';
import type { RunsService } from '../runs/runs.service';
import type { RunStarter } from '../workflow/execution/run-starter.service';
import type { WorkflowEntity } from '../workflow/workflow.entity';
import type { ReplayService } from './replay.service';
import { TestCaseRunner } from './test-case-runner';

const PRINCIPAL = { userId: 'user', role: 'admin' } as unknown as Principal;

describe(TestCaseRunner.name, () => {
  afterEach(() => jest.useRealTimers());

  it('should read a run its process no longer executes again at intervals, not in a loop that starves the process', async () => {
    jest.useFakeTimers();
    // The run was handed back (shutdown): it stays `running`, and the supervisor, which no longer holds it,
    // answers at once that its execution stopped.
    let status = 'running';
    const reads: string[] = [];
    const runs = {
      statusOf: () => {
        reads.push(status);
        // A bound for the loop this test catches: it would otherwise never yield to the test again.
        return Promise.resolve(reads.length > 1_000 ? 'cancelled' : status);
      },
    } as unknown as RunsService;
    const supervisor = { waitForEnd: () => Promise.resolve(true) } as unknown as RunSupervisor;
    const runner = { startStored: () => Promise.resolve({ run: { id: 'run-1' } }) } as unknown as RunStarter;
    const queries = { get: () => Promise.reject(new Error('read')) } as unknown as RunQueriesService;
    const sut = new TestCaseRunner(runner, runs, queries, {} as ReplayService, supervisor, {} as ProviderRegistry);

    const result = sut.run(
      { id: 'workflow' } as WorkflowEntity,
      { version: 1, definition: {} as never },
      { name: 'case', inputs: {}, assertions: [] },
      { concurrency: 1, budgets: {} },
      PRINCIPAL,
    );
    const ended = expect(result).rejects.toThrow('read');
    for (let turn = 0; turn < 50; turn++) await Promise.resolve();

    expect(reads.length).toBeLessThanOrEqual(2);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(reads.length).toBeLessThanOrEqual(4);
    status = 'cancelled';
    await jest.advanceTimersByTimeAsync(1_000);
    await ended;
  });
});
