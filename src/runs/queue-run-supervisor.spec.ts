import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import type { Repository } from 'typeorm';
import { adminPrincipal, newRun, userPrincipal } from '../../test/factories/run.factory';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { describeWithRedis, dropRedisPrefix, testRedisUrl, uniqueRedisPrefix } from '../../test/support/test-redis';
import { waitFor } from '../../test/support/wait-for';
import { providedPort } from '../common/port';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ShutdownGrace } from '../config/shutdown-grace';
import { QueueRunSupervisor } from './queue-run-supervisor';
import { RunEntity } from './run.entity';
import { RunEventsService } from './run-events.service';
import { RunLeasesService } from './run-leases.service';
import { RUN_REDIS, RunRedis } from './run-redis';
import { RUN_EXECUTOR, type RunExecutor, RunHandedBackError, RunLeaseLostError, type RunStop } from './run-supervisor';
import { RunsService } from './runs.service';
import type { RunRecord } from './run-record';
import { RunQueriesService } from './run-queries.service';

/** Executions the test ends by hand; each records how it ended like the real executor does. */
class ScriptedExecutor implements RunExecutor {
  readonly started: Array<{ runId: string; worker: string }> = [];
  readonly reasons: unknown[] = [];
  /** Why executions stopped unfinished. */
  readonly handedBack: unknown[] = [];
  /** Executions whose end was not stored: their worker no longer held the run's lease. */
  readonly fenced: string[] = [];
  /** The lease each execution was told it executes under. */
  readonly leaseOwners: Array<string | undefined> = [];
  /** The copy of the run each execution was given (a new run's, from its job), if any. */
  readonly copies: Array<RunRecord | undefined> = [];
  executing = 0;
  maxExecuting = 0;
  private readonly releases = new Map<string, () => void>();

  constructor(private readonly runs: RunsService) {}

  forWorker(worker: string): RunExecutor {
    return {
      execute: (runId, signal, created, leaseOwner) => {
        this.copies.push(created?.run);
        return this.executeOn(worker, runId, signal, leaseOwner);
      },
    };
  }

  execute(runId: string, signal: AbortSignal): Promise<RunStop> {
    return this.executeOn('unknown', runId, signal);
  }

  private async executeOn(worker: string, runId: string, signal: AbortSignal, leaseOwner?: string): Promise<RunStop> {
    this.started.push({ runId, worker });
    this.leaseOwners.push(leaseOwner);
    this.executing += 1;
    this.maxExecuting = Math.max(this.maxExecuting, this.executing);
    try {
      await this.runs.markRunning(runId);
      const released = new Promise<void>((resolve) => this.releases.set(runId, resolve));
      await Promise.race([released, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
      if (signal.reason instanceof RunHandedBackError) {
        this.handedBack.push(signal.reason);
        return 'handed_back';
      }
      this.reasons.push(signal.reason);
      const end = signal.aborted ? ({ status: 'cancelled' } as const) : ({ status: 'succeeded' } as const);
      if (await this.runs.finish(runId, end, leaseOwner)) return 'ended';
      this.fenced.push(runId);
      return 'handed_back';
    } finally {
      this.executing -= 1;
    }
  }

  finish(runId: string): void {
    this.releases.get(runId)?.();
  }
}

describeWithRedis()(QueueRunSupervisor.name, () => {
  const url = testRedisUrl() as string;
  let prefix: string;
  let moduleRef: TestingModule;
  let runs: RunsService;
  let rows: Repository<RunEntity>;
  let executor: ScriptedExecutor;
  const started: QueueRunSupervisor[] = [];
  const connections: RunRedis[] = [];

  const supervisor = async (role: 'api' | 'worker', name: string = role): Promise<QueueRunSupervisor> => {
    const config = { ...moduleRef.get<AppConfig>(APP_CONFIG), role };
    const redis = new RunRedis(url, prefix);
    connections.push(redis);
    const sut = new QueueRunSupervisor(
      runs,
      moduleRef.get(RunQueriesService),
      moduleRef.get(RunEventsService),
      moduleRef.get(RunLeasesService),
      redis,
      providedPort(RUN_EXECUTOR, executor.forWorker(name)),
      config,
      // Each supervisor stands for a process of its own, with its own shutdown.
      new ShutdownGrace(config.shutdownGraceMs),
    );
    await sut.onApplicationBootstrap();
    started.push(sut);
    return sut;
  };

  const submitted = async (api: QueueRunSupervisor): Promise<string> => {
    const run = await runs.create(newRun());
    api.reserve().submit({ run, awaited: false });
    return run.id;
  };

  const row = async (id: string) => rows.findOneByOrFail({ id });

  beforeEach(async () => {
    prefix = uniqueRedisPrefix();
    moduleRef = await runsTestingModule(
      [
        RunsService,
        RunQueriesService,
        RunEventsService,
        RunLeasesService,
        { provide: RUN_REDIS, useFactory: () => new RunRedis(url, prefix) },
      ],
      { REDIS_URL: url, REDIS_KEY_PREFIX: prefix, RUN_LEASE_MS: '1500', SHUTDOWN_GRACE_MS: '5000' },
    );
    runs = moduleRef.get(RunsService);
    rows = moduleRef.get(getRepositoryToken(RunEntity));
    executor = new ScriptedExecutor(runs);
  });

  afterEach(async () => {
    for (const sut of started.splice(0)) {
      await sut.beforeApplicationShutdown();
      sut.onApplicationShutdown();
    }
    for (const redis of connections.splice(0)) await redis.close();
    await moduleRef.close();
    await dropRedisPrefix(url, prefix);
  });

  it('should execute a run submitted on an api process on a worker, holding its lease meanwhile', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const id = await submitted(api);

    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });
    expect(await row(id)).toMatchObject({ status: 'running', leaseOwner: expect.any(String) as string });
    expect(api.load().running).toBe(0);
    executor.finish(id);

    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    await waitFor(async () => (await row(id)).leaseOwner === null, { what: 'the lease was released' });
    expect(await row(id)).toMatchObject({ status: 'succeeded', leaseExpiresAt: null });
  });

  it('should stop a run on a worker when an api process cancels it, and show it cancelled at once', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const id = await submitted(api);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });

    const response = await api.cancel(id, adminPrincipal());

    expect(response.status).toBe('cancelled');
    await waitFor(() => executor.reasons.length === 1, { what: 'the execution was aborted' });
    expect(executor.reasons[0]).toEqual(new Error('cancelled by the client'));
    await expect(api.cancel(id, adminPrincipal())).rejects.toMatchObject({ code: 'conflict' });
  });

  it('should never start a queued run that was cancelled, and end its event log', async () => {
    const api = await supervisor('api');
    const id = await submitted(api);
    await api.cancel(id, adminPrincipal());
    await supervisor('worker');
    const other = await submitted(api);

    await waitFor(() => executor.started.length === 1, { what: 'the worker took the next run' });
    expect(executor.started.map((start) => start.runId)).toEqual([other]);
    const events: string[] = [];
    await moduleRef.get(RunEventsService).subscribe(id, 0, (event) => events.push(event.type));
    expect(events).toEqual(['run.finished']);
    executor.finish(other);
  });

  it('should hand runs back when a worker shuts down, for another worker to continue', async () => {
    const api = await supervisor('api');
    const first = await supervisor('worker', 'first');
    const id = await submitted(api);
    await waitFor(() => executor.started.length === 1, { what: 'the first worker started the run' });
    await supervisor('worker', 'second');

    await first.beforeApplicationShutdown();

    await waitFor(() => executor.started.length === 2, { what: 'the second worker continued the run' });
    expect(executor.started.map((start) => start.worker)).toEqual(['first', 'second']);
    executor.finish(id);
    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    expect((await row(id)).status).toBe('succeeded');
  });

  it('should take over a running run whose worker stopped renewing its lease', async () => {
    const run = await runs.create(newRun());
    await rows.update(
      { id: run.id },
      { status: 'running', leaseOwner: 'dead-worker', leaseExpiresAt: new Date(Date.now() - 1) },
    );
    await supervisor('worker', 'survivor');

    await waitFor(() => executor.started.length === 1, { what: 'the survivor took the run over' });
    expect(executor.started[0]).toEqual({ runId: run.id, worker: 'survivor' });
    expect((await row(run.id)).leaseOwner).not.toBe('dead-worker');
    executor.finish(run.id);
  });

  it('should execute a queued run whose job failed after a worker leased it, and one whose job vanished', async () => {
    const leaseRanOut = await runs.create(newRun());
    const neverLeased = await runs.create(newRun());
    const old = new Date(Date.now() - 60_000);
    await rows.update(
      { id: leaseRanOut.id },
      { leaseOwner: 'worker-cut-off', leaseExpiresAt: new Date(Date.now() - 1), createdAt: old },
    );
    await rows.update({ id: neverLeased.id }, { createdAt: old });
    await supervisor('worker', 'survivor');

    await waitFor(() => executor.started.length === 2, { what: 'the survivor executed both runs' });
    expect(executor.started.map((start) => start.runId).sort()).toEqual([leaseRanOut.id, neverLeased.id].sort());
    executor.finish(leaseRanOut.id);
    executor.finish(neverLeased.id);
  });

  it('should let only one of two workers execute a run that was queued twice', async () => {
    const api = await supervisor('api');
    await supervisor('worker', 'first');
    await supervisor('worker', 'second');
    const run = await runs.create(newRun());
    api.reserve().submit({ run, awaited: false });
    api.reserve().submit({ run, awaited: false });
    const marker = await submitted(api);

    await waitFor(() => executor.started.some((start) => start.runId === marker), { what: 'a later run started' });
    expect(executor.started.filter((start) => start.runId === run.id)).toHaveLength(1);
    executor.finish(run.id);
    executor.finish(marker);
  });

  it('should stop a run whose cancel message it missed at its next heartbeat', async () => {
    await supervisor('worker');
    const api = await supervisor('api');
    const id = await submitted(api);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });

    // Cancelled in the database only, as if the Redis message had been lost.
    await runs.cancelUnfinished(id, 'cancelled by the client');

    await waitFor(() => executor.reasons.length === 1, { what: 'the heartbeat stopped the run' });
    expect(executor.reasons[0]).toEqual(new Error('cancelled by the client'));
  });

  it('should not execute a run a second time on its worker when a reconciler queues it again meanwhile', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const id = await submitted(api);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });
    const { leaseOwner } = await row(id);

    // Its lease ran out (a process starved of CPU renewed it too late), and a reconciler claimed and queued it again.
    await rows.update({ id }, { leaseOwner: null, leaseExpiresAt: new Date(Date.now() + 60_000) });
    api.resume(id);
    const marker = await submitted(api);

    await waitFor(async () => (await row(id)).leaseOwner === leaseOwner, { what: 'the worker took the lease again' });
    await waitFor(() => executor.started.some((start) => start.runId === marker), { what: 'a later run started' });
    expect(executor.started.filter((start) => start.runId === id)).toHaveLength(1);
    executor.finish(id);
    executor.finish(marker);
    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    expect(await row(id)).toMatchObject({ status: 'succeeded' });
    expect(executor.fenced).toEqual([]);
  });

  it('should stop a run another worker took over at its next heartbeat, its execution told which lease it had', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const id = await submitted(api);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });
    expect(executor.leaseOwners).toEqual([(await row(id)).leaseOwner]);

    await rows.update({ id }, { leaseOwner: 'other-worker', leaseExpiresAt: new Date(Date.now() + 60_000) });

    await waitFor(() => executor.handedBack.length === 1, { what: 'the heartbeat stopped the run' });
    expect(executor.handedBack[0]).toBeInstanceOf(RunLeaseLostError);
    expect(await row(id)).toMatchObject({ status: 'running', leaseOwner: 'other-worker' });
  });

  it('should stop executing a run whose lease it could not renew in time, and let it go on once only', async () => {
    const leases = moduleRef.get(RunLeasesService);
    const api = await supervisor('api');
    await supervisor('worker');
    const id = await submitted(api);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });

    // Renewals hang (a process starved of CPU, a stuck connection) until the lease must be taken as lost.
    let failRenewals: (error: Error) => void = () => undefined;
    const renewals = jest
      .spyOn(leases, 'renewAll')
      .mockReturnValue(new Promise((_resolve, reject) => (failRenewals = reject)));

    await waitFor(() => executor.handedBack.length === 1, { what: 'the worker stopped the run' });
    expect(executor.handedBack[0]).toBeInstanceOf(RunLeaseLostError);
    failRenewals(new Error('connection lost'));
    renewals.mockRestore();
    await waitFor(() => executor.started.length === 2, { what: 'the run went on' });
    executor.finish(id);
    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    expect(executor.maxExecuting).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'succeeded' });
  });

  it('should wake a request waiting for a run once its execution stopped, not at each of its events', async () => {
    const api = await supervisor('api');
    const apiRedis = connections[0];
    await supervisor('worker');
    const id = await submitted(api);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });
    const statusReads = jest.spyOn(runs, 'statusOf');
    const ended = api.waitForEnd(id, 60_000);
    await waitFor(() => statusReads.mock.calls.length === 1, { what: 'the request read the run' });

    const events = moduleRef.get(RunEventsService);
    for (let index = 0; index < 3; index++) {
      await events.appendAndPublish(id, 'node.started', { node_id: `n${index}` });
      // Published after the event on the same connection: once the api process hears it, it has heard the event.
      let heard = false;
      const stop = await apiRedis.listen(apiRedis.channel('marker'), () => (heard = true));
      moduleRef.get<RunRedis>(RUN_REDIS).publish(apiRedis.channel('marker'), 'after');
      await waitFor(() => heard, { what: 'the api process heard the event' });
      stop();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(statusReads).toHaveBeenCalledTimes(1);
    executor.finish(id);

    await expect(ended).resolves.toBe(true);
  });

  it('should answer a request waiting for a run with the run as it ended, once its worker stopped it', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const run = await runs.create(newRun());
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, adminPrincipal(), 60_000);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });

    executor.finish(run.id);

    await expect(answer).resolves.toMatchObject({ id: run.id, status: 'succeeded', nodes: [] });
  });

  it('should answer a request waiting for a new run with what its worker wrote, without reading the run back', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const run = await runs.create(newRun({ userId: 'user-1' }));
    const queries = moduleRef.get(RunQueriesService);
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, userPrincipal('user-1'), 60_000);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });
    const reads = jest.spyOn(queries, 'findVisible');

    executor.finish(run.id);

    const answered = await answer;
    expect(reads).not.toHaveBeenCalled();
    expect(answered).toEqual(await queries.get(run.id, adminPrincipal()));
  });

  it('should not show a waiting request a run another user owns, carried or not', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const run = await runs.create(newRun({ userId: 'user-1' }));
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, userPrincipal('user-2'), 60_000);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });

    executor.finish(run.id);

    await expect(answer).rejects.toMatchObject({ code: 'not_found' });
  });

  it('should look at a waited-for run again once its subscription is back, its stop message lost meanwhile', async () => {
    const api = await supervisor('api');
    const apiRedis = connections[0];
    await supervisor('worker');
    const run = await runs.create(newRun());
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, adminPrincipal(), 60_000);
    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });
    const statusReads = jest.spyOn(runs, 'statusOf');
    // Unheard by the api process, as if published while its subscription was away.
    jest.spyOn(connections[1], 'publish').mockImplementation(() => undefined);
    executor.finish(run.id);
    await waitFor(async () => (await row(run.id)).leaseOwner === null, { what: 'the worker let go of the run' });

    (apiRedis as unknown as { subscriber: Redis }).subscriber.disconnect(true);

    await expect(answer).resolves.toMatchObject({ id: run.id, status: 'succeeded' });
    expect(statusReads).not.toHaveBeenCalled();
  });

  it('should start a new run from the copy its job carries, taking and marking it running in one statement', async () => {
    const api = await supervisor('api');
    await supervisor('worker');
    const run = await runs.create(newRun({ inputs: { question: 'Hi?' } }));
    api.reserve().submit({ run, awaited: false });

    await waitFor(() => executor.started.length === 1, { what: 'the worker started the run' });
    expect(await row(run.id)).toMatchObject({ status: 'running', leaseOwner: executor.leaseOwners[0] });
    expect(executor.copies[0]).toEqual({ ...run, status: 'running', startedAt: expect.any(Date) as Date });
    executor.finish(run.id);
  });

  it('should read a run whose job carries a copy from before it started, and not start it anew', async () => {
    const api = await supervisor('api');
    const run = await runs.create(newRun());
    // Started and handed back by a worker since its first job was queued.
    await rows.update({ id: run.id }, { status: 'running', startedAt: new Date() });
    api.reserve().submit({ run, awaited: false });
    await supervisor('worker');

    await waitFor(() => executor.started.length === 1, { what: 'the worker took the run' });
    expect(executor.copies).toEqual([undefined]);
    executor.finish(run.id);
  });
});
