import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newRun } from '../../test/factories/run.factory';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { RunEntity, type RunStatus } from './run.entity';
import { RunLeasesService } from './run-leases.service';
import { type RunQueueJob, RunReconciler } from './run-reconciler';
import { RunsService } from './runs.service';

const LEASE_MS = 30_000;

describe(RunReconciler.name, () => {
  let moduleRef: TestingModule;
  let runs: RunsService;
  let rows: Repository<RunEntity>;
  let leases: RunLeasesService;
  let jobs: RunQueueJob[];
  let enqueued: string[];
  let sut: RunReconciler;

  const stored = async (
    changes: Partial<Pick<RunEntity, 'leaseOwner' | 'leaseExpiresAt' | 'parentRunId'>> & { status: RunStatus },
  ): Promise<string> => {
    const run = await runs.create(newRun({ parentRunId: changes.parentRunId ?? null }));
    await rows.update({ id: run.id }, { createdAt: new Date(Date.now() - 2 * LEASE_MS), ...changes });
    return run.id;
  };
  const past = () => new Date(Date.now() - 1000);
  const future = () => new Date(Date.now() + LEASE_MS);

  beforeEach(async () => {
    moduleRef = await runsTestingModule([RunsService, RunLeasesService]);
    runs = moduleRef.get(RunsService);
    rows = moduleRef.get(getRepositoryToken(RunEntity));
    leases = moduleRef.get(RunLeasesService);
    jobs = [];
    enqueued = [];
    sut = new RunReconciler(
      leases,
      {
        jobs: () => Promise.resolve(jobs),
        enqueue: (runId) => {
          enqueued.push(runId);
          return Promise.resolve();
        },
      },
      LEASE_MS,
    );
  });

  afterEach(() => moduleRef.close());

  it('should queue again, once, a queued run whose worker lost its lease and whose job is gone', async () => {
    const id = await stored({ status: 'queued', leaseOwner: 'worker-a', leaseExpiresAt: past() });

    expect(await sut.reconcile()).toEqual([id]);
    expect(await sut.reconcile()).toEqual([]);
    expect(enqueued).toEqual([id]);
  });

  it('should queue again a queued run never leased whose job is gone, and a running run whose lease ran out', async () => {
    const queued = await stored({ status: 'queued' });
    const running = await stored({ status: 'running', leaseOwner: 'dead-worker', leaseExpiresAt: past() });

    expect((await sut.reconcile()).sort()).toEqual([queued, running].sort());
  });

  it('should queue again a run whose job a worker took over a lease period ago without leasing the run', async () => {
    const takenByTheDead = await stored({ status: 'queued' });
    const leaseRanOut = await stored({ status: 'running', leaseOwner: 'dead-worker', leaseExpiresAt: past() });
    const longAgo = Date.now() - LEASE_MS - 1000;
    jobs.push({ runId: takenByTheDead, takenAt: longAgo }, { runId: leaseRanOut, takenAt: longAgo });

    expect((await sut.reconcile()).sort()).toEqual([takenByTheDead, leaseRanOut].sort());
    expect(await sut.reconcile()).toEqual([]);
    expect(enqueued.sort()).toEqual([takenByTheDead, leaseRanOut].sort());
  });

  it('should leave alone a run whose job a worker took less than a lease period ago', async () => {
    const id = await stored({ status: 'queued' });
    jobs.push({ runId: id, takenAt: Date.now() - 1000 });

    expect(await sut.reconcile()).toEqual([]);
  });

  it('should leave alone runs with a live job or lease, waiting, ended and child runs, and a run just created', async () => {
    const withJob = await stored({ status: 'queued', leaseOwner: 'worker-a', leaseExpiresAt: past() });
    jobs.push({ runId: withJob, takenAt: null });
    await stored({ status: 'running', leaseOwner: 'worker-a', leaseExpiresAt: future() });
    await stored({ status: 'waiting' });
    await stored({ status: 'succeeded', leaseExpiresAt: past() });
    const parent = await stored({ status: 'running', leaseOwner: 'worker-a', leaseExpiresAt: future() });
    await stored({ status: 'running', parentRunId: parent, leaseExpiresAt: past() });
    await runs.create(newRun());

    expect(await sut.reconcile()).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('should queue a run again after its claim ran out when that job was lost too', async () => {
    const id = await stored({ status: 'queued' });
    await sut.reconcile();
    await rows.update({ id }, { leaseExpiresAt: past() });

    expect(await sut.reconcile()).toEqual([id]);
    expect(enqueued).toEqual([id, id]);
  });
});
