import type { Redis } from 'ioredis';
import { adminPrincipal, newRun, userPrincipal } from '../../test/factories/run.factory';
import { queueSupervisorHarness } from '../../test/support/queue-supervisor-harness';
import { describeWithRedis } from '../../test/support/test-redis';
import { waitFor } from '../../test/support/wait-for';
import { QueueRunSupervisor } from './queue-run-supervisor';
import { RunEventsService } from './run-events.service';
import { RUN_REDIS, type RunRedis } from './run-redis';
import { RunQueriesService } from './run-queries.service';

/** ?wait=true in queue mode: a request on an api process waiting for a run a worker executes. */
describeWithRedis()(`${QueueRunSupervisor.name}: waiting for a run`, () => {
  const h = queueSupervisorHarness();

  it('should wake a request waiting for a run once its execution stopped, not at each of its events', async () => {
    const api = await h.supervisor('api');
    const apiRedis = h.connections[0];
    await h.supervisor('worker');
    const id = await h.submitted(api);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });
    const statusReads = jest.spyOn(h.runs, 'statusOf');
    const ended = api.waitForEnd(id, 60_000);
    await waitFor(() => statusReads.mock.calls.length === 1, { what: 'the request read the run' });

    const events = h.moduleRef.get(RunEventsService);
    for (let index = 0; index < 3; index++) {
      await events.appendAndPublish(id, 'node.started', { node_id: `n${index}` });
      // Published after the event on the same connection: once the api process hears it, it has heard the event.
      let heard = false;
      const stop = await apiRedis.listen(apiRedis.channel('marker'), () => (heard = true));
      h.moduleRef.get<RunRedis>(RUN_REDIS).publish(apiRedis.channel('marker'), 'after');
      await waitFor(() => heard, { what: 'the api process heard the event' });
      stop();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(statusReads).toHaveBeenCalledTimes(1);
    h.executor.finish(id);

    await expect(ended).resolves.toBe(true);
  });

  it('should answer a request waiting for a run with the run as it ended, once its worker stopped it', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const run = await h.runs.create(newRun());
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, adminPrincipal(), 60_000);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });

    h.executor.finish(run.id);

    await expect(answer).resolves.toMatchObject({ id: run.id, status: 'succeeded', nodes: [] });
  });

  it('should answer a request waiting for a new run with what its worker wrote, without reading the run back', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const run = await h.runs.create(newRun({ userId: 'user-1' }));
    const queries = h.moduleRef.get(RunQueriesService);
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, userPrincipal('user-1'), 60_000);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });
    const reads = jest.spyOn(queries, 'findVisible');

    h.executor.finish(run.id);

    const answered = await answer;
    expect(reads).not.toHaveBeenCalled();
    expect(answered).toEqual(await queries.get(run.id, adminPrincipal()));
  });

  it('should not show a waiting request a run another user owns, carried or not', async () => {
    const api = await h.supervisor('api');
    await h.supervisor('worker');
    const run = await h.runs.create(newRun({ userId: 'user-1' }));
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, userPrincipal('user-2'), 60_000);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });

    h.executor.finish(run.id);

    await expect(answer).rejects.toMatchObject({ code: 'not_found' });
  });

  it('should look at a waited-for run again once its subscription is back, its stop message lost meanwhile', async () => {
    const api = await h.supervisor('api');
    const apiRedis = h.connections[0];
    await h.supervisor('worker');
    const run = await h.runs.create(newRun());
    api.reserve().submit({ run, awaited: true });
    const answer = api.waitForRun(run.id, adminPrincipal(), 60_000);
    await waitFor(() => h.executor.started.length === 1, { what: 'the worker started the run' });
    const statusReads = jest.spyOn(h.runs, 'statusOf');
    // Unheard by the api process, as if published while its subscription was away.
    jest.spyOn(h.connections[1], 'publish').mockImplementation(() => undefined);
    h.executor.finish(run.id);
    await waitFor(async () => (await h.row(run.id)).leaseOwner === null, { what: 'the worker let go of the run' });

    (apiRedis as unknown as { subscriber: Redis }).subscriber.disconnect(true);

    await expect(answer).resolves.toMatchObject({ id: run.id, status: 'succeeded' });
    expect(statusReads).not.toHaveBeenCalled();
  });
});
