import { waitFor } from '../../test/support/wait-for';
import { queueSupervisorHarness } from '../../test/support/queue-supervisor-harness';
import { describeWithRedis } from '../../test/support/test-redis';
import { QueueRunSupervisor } from './queue-run-supervisor';
import { RunLeaseLostError } from './run-supervisor';
import { adminPrincipal, newRun } from '../../test/factories/run.factory';
import { RunEventsService } from './run-events.service';
import { RunLeasesService } from './run-leases.service';

describeWithRedis()(QueueRunSupervisor.name, () => {
  const h = queueSupervisorHarness();

  it('should execute a run submitted on an api process on a worker, holding its lease meanwhile', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const id = await h.submitted(api);

    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });
    expect(await h.row(id)).toMatchObject({ status: 'running', leaseOwner: expect.any(String) as string });
    expect(api.load().running).toBe(0);
    h.executor.finish(id);

    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    await waitFor(async () => (await h.row(id)).leaseOwner === null, { what: 'the lease was released' });
    expect(await h.row(id)).toMatchObject({ status: 'succeeded', leaseExpiresAt: null });
  });

  it('should stop a run on a worker when an api process cancels it, and show it cancelled at once', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const id = await h.submitted(api);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });

    const response = await api.cancel(id, adminPrincipal());

    expect(response.status).toBe('cancelled');
    await waitFor(() => h.executor.reasons.length === 1, { what: 'the execution was aborted' });
    expect(h.executor.reasons[0]).toEqual(new Error('cancelled by the client'));
    await expect(api.cancel(id, adminPrincipal())).rejects.toMatchObject({ code: 'conflict' });
  });

  it('should never start a queued run that was cancelled, and end its event log', async () => {
    const api = await h.supervisor('api');
    const id = await h.submitted(api);
    await api.cancel(id, adminPrincipal());
    await h.supervisor('worker');
    const other = await h.submitted(api);

    await waitFor(() => h.executor.started.length === 1, { what: 'the worker took the next run' });
    expect(h.executor.started.map((start) => start.runId)).toEqual([other]);
    const events: string[] = [];
    await h.moduleRef.get(RunEventsService).subscribe(id, 0, (event) => events.push(event.type));
    expect(events).toEqual(['run.finished']);
    h.executor.finish(other);
  });

  it('should hand runs back when a worker shuts down, for another worker to continue', async () => {
    const api = await h.supervisor('api');
    const first = await h.supervisor('worker', 'first');
    const id = await h.submitted(api);
    await waitFor(() => h.executor.started.length === 1, { what: 'the first worker started the run' });
    await h.supervisor('worker', 'second');

    await first.beforeApplicationShutdown();

    await waitFor(() => h.executor.started.length === 2, { what: 'the second worker continued the run' });
    expect(h.executor.started.map((start) => start.worker)).toEqual(['first', 'second']);
    h.executor.finish(id);
    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    expect((await h.row(id)).status).toBe('succeeded');
  });

  it('should take over a running run whose worker stopped renewing its lease', async () => {
    const run = await h.runs.create(newRun());
    await h.rows.update(
      { id: run.id },
      { status: 'running', leaseOwner: 'dead-worker', leaseExpiresAt: new Date(Date.now() - 1) },
    );
    await h.supervisor('worker', 'survivor');

    await waitFor(() => h.executor.started.length === 1, { what: 'the survivor took the run over' });
    expect(h.executor.started[0]).toEqual({ runId: run.id, worker: 'survivor' });
    expect((await h.row(run.id)).leaseOwner).not.toBe('dead-worker');
    h.executor.finish(run.id);
  });

  it('should execute a queued run whose job failed after a worker leased it, and one whose job vanished', async () => {
    const leaseRanOut = await h.runs.create(newRun());
    const neverLeased = await h.runs.create(newRun());
    const old = new Date(Date.now() - 60_000);
    await h.rows.update(
      { id: leaseRanOut.id },
      { leaseOwner: 'worker-cut-off', leaseExpiresAt: new Date(Date.now() - 1), createdAt: old },
    );
    await h.rows.update({ id: neverLeased.id }, { createdAt: old });
    await h.supervisor('worker', 'survivor');

    await waitFor(() => h.executor.started.length === 2, { what: 'the survivor executed both runs' });
    expect(h.executor.started.map((start) => start.runId).sort()).toEqual([leaseRanOut.id, neverLeased.id].sort());
    h.executor.finish(leaseRanOut.id);
    h.executor.finish(neverLeased.id);
  });

  it('should let only one of two workers execute a run that was queued twice', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker', 'first');
    await h.supervisor('worker', 'second');
    const run = await h.runs.create(newRun());
    api.reserve().submit({ run, awaited: false });
    api.reserve().submit({ run, awaited: false });
    const marker = await h.submitted(api);

    await waitFor(() => h.executor.started.some((start) => start.runId === marker), { what: 'a later run started' });
    expect(h.executor.started.filter((start) => start.runId === run.id)).toHaveLength(1);
    h.executor.finish(run.id);
    h.executor.finish(marker);
  });

  it('should stop a run whose cancel message it missed at its next heartbeat', async () => {
    await h.supervisor('worker');
    const api = await h.supervisor('api');
    const id = await h.submitted(api);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });

    // Cancelled in the database only, as if the Redis message had been lost.
    await h.runs.cancelUnfinished(id, 'cancelled by the client');

    await waitFor(() => h.executor.reasons.length === 1, { what: 'the heartbeat stopped the run' });
    expect(h.executor.reasons[0]).toEqual(new Error('cancelled by the client'));
  });

  it('should not execute a run a second time on its worker when a reconciler queues it again meanwhile', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const id = await h.submitted(api);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });
    const { leaseOwner } = await h.row(id);

    // Its lease ran out (a process starved of CPU renewed it too late), and a reconciler claimed and queued it again.
    await h.rows.update({ id }, { leaseOwner: null, leaseExpiresAt: new Date(Date.now() + 60_000) });
    api.resume(id);
    const marker = await h.submitted(api);

    await waitFor(async () => (await h.row(id)).leaseOwner === leaseOwner, { what: 'the worker took the lease again' });
    await waitFor(() => h.executor.started.some((start) => start.runId === marker), { what: 'a later run started' });
    expect(h.executor.started.filter((start) => start.runId === id)).toHaveLength(1);
    h.executor.finish(id);
    h.executor.finish(marker);
    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    expect(await h.row(id)).toMatchObject({ status: 'succeeded' });
    expect(h.executor.fenced).toEqual([]);
  });

  it('should stop a run another worker took over at its next heartbeat, its execution told which lease it had', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const id = await h.submitted(api);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });
    expect(h.executor.leaseOwners).toEqual([(await h.row(id)).leaseOwner]);

    await h.rows.update({ id }, { leaseOwner: 'other-worker', leaseExpiresAt: new Date(Date.now() + 60_000) });

    await waitFor(() => h.executor.handedBack.length === 1, { what: 'the heartbeat stopped the run' });
    expect(h.executor.handedBack[0]).toBeInstanceOf(RunLeaseLostError);
    expect(await h.row(id)).toMatchObject({ status: 'running', leaseOwner: 'other-worker' });
  });

  it('should stop executing a run whose lease it could not renew in time, and let it go on once only', async () => {
    const leases = h.moduleRef.get(RunLeasesService);
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const id = await h.submitted(api);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });

    // Renewals hang (a process starved of CPU, a stuck connection) until the lease must be taken as lost.
    let failRenewals: (error: Error) => void = () => undefined;
    const renewals = jest
      .spyOn(leases, 'renewAll')
      .mockReturnValue(new Promise((_resolve, reject) => (failRenewals = reject)));

    await waitFor(() => h.executor.handedBack.length === 1, { what: 'the worker stopped the run' });
    expect(h.executor.handedBack[0]).toBeInstanceOf(RunLeaseLostError);
    failRenewals(new Error('connection lost'));
    renewals.mockRestore();
    await waitFor(() => h.executor.started.length === 2, { what: 'the run went on' });
    h.executor.finish(id);
    await expect(api.waitForEnd(id, 10_000)).resolves.toBe(true);
    expect(h.executor.maxExecuting).toBe(1);
    expect(await h.row(id)).toMatchObject({ status: 'succeeded' });
  });

  it('should start a new run from the copy its job carries, taking and marking it running in one statement', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const run = await h.runs.create(newRun({ inputs: { question: 'Hi?' } }));
    api.reserve().submit({ run, awaited: false });

    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });
    expect(await h.row(run.id)).toMatchObject({ status: 'running', leaseOwner: h.executor.leaseOwners[0] });
    expect(h.executor.copies[0]).toEqual({ ...run, status: 'running', startedAt: expect.any(Date) as Date });
    h.executor.finish(run.id);
  });

  it('should read a run whose job carries a copy from before it started, and not start it anew', async () => {
    const api = await h.supervisor('api');
    const run = await h.runs.create(newRun());
    // Started and handed back by a worker since its first job was queued.
    await h.rows.update({ id: run.id }, { status: 'running', startedAt: new Date() });
    api.reserve().submit({ run, awaited: false });
    await h.supervisor('worker');

    await waitFor(() => h.executor.started.length === 1, { what: 'the worker took the run' });
    expect(h.executor.copies).toEqual([undefined]);
    h.executor.finish(run.id);
  });
});
