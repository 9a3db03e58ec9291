import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, type Repository } from 'typeorm';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { countStatements } from '../../test/support/statement-counter';
import { type FakeRunRedis, queueModeEventLogs } from '../../test/support/fake-run-redis';
import { waitFor } from '../../test/support/wait-for';
import { RunEventEntity } from './run-event.entity';
import { RETAIN_FINISHED_RUNS, RunEventsService } from './run-events.service';
import type { RunEvent } from './run-event-types';

const RUN_ID = '11111111-1111-4111-8111-111111111111';

describe(RunEventsService.name, () => {
  let moduleRef: TestingModule;
  let sut: RunEventsService;

  beforeEach(async () => {
    moduleRef = await runsTestingModule([RunEventsService]);
    sut = moduleRef.get(RunEventsService);
  });

  afterEach(() => moduleRef.close());

  describe('emit', () => {
    afterEach(() => jest.useRealTimers());

    it('should store the events of a run in one INSERT when the run finishes, not one per event or node', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const counter = countStatements(moduleRef.get(DataSource));
      const tick = () => new Promise((resolve) => setImmediate(resolve));
      sut.emit(RUN_ID, 'node.started', { node_id: 'llm-1' });
      await tick();
      sut.emit(RUN_ID, 'tool.call', { node_id: 'llm-1', call_id: 'c1' });
      await tick();
      sut.emit(RUN_ID, 'tool.result', { node_id: 'llm-1', call_id: 'c1' });
      await tick();
      sut.emit(RUN_ID, 'node.finished', { node_id: 'llm-1' });
      await tick();
      expect(counter.count('INSERT')).toBe(0);

      sut.emit(RUN_ID, 'run.finished', { status: 'succeeded' });
      await sut.flush(RUN_ID);

      expect(counter.count('INSERT')).toBe(1);
      const stored = await moduleRef
        .get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity))
        .find({ where: { runId: RUN_ID }, order: { seq: 'ASC' } });
      expect(stored.map((event) => event.type)).toEqual([
        'node.started',
        'tool.call',
        'tool.result',
        'node.finished',
        'run.finished',
      ]);
      counter.stop();
    });

    it('should store waiting events after a short delay even when no node finishes', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const counter = countStatements(moduleRef.get(DataSource));
      sut.emit(RUN_ID, 'tool.call', { node_id: 'llm-1', call_id: 'c1' });

      expect(counter.count('INSERT')).toBe(0);

      jest.advanceTimersByTime(1_000);
      for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));

      expect(counter.count('INSERT')).toBe(1);
      counter.stop();
    });
  });

  describe('queue mode (live fan-out through Redis)', () => {
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    let redis: FakeRunRedis;
    /** The process that executes the run, and another one that only serves its events. */
    let worker: RunEventsService;
    let api: RunEventsService;

    beforeEach(() => {
      ({ redis, worker, api } = queueModeEventLogs(moduleRef));
    });

    afterEach(() => jest.useRealTimers());

    // Made by hand, so the testing module does not shut them down: their pending writes would outlive the test
    // (and its database) on a timer.
    afterEach(() => Promise.all([worker, api].map((service) => service.onApplicationShutdown())));

    it('should publish each batch of events as one message, in order, once it is stored', async () => {
      worker.emit(RUN_ID, 'node.started', { node_id: 'llm-1' });
      worker.emit(RUN_ID, 'llm.delta', { node_id: 'llm-1', delta: 'Hel' });
      worker.emit(RUN_ID, 'llm.delta', { node_id: 'llm-1', delta: 'lo' });
      await tick();
      const beforeStored = redis.published.length;
      await worker.flush(RUN_ID);
      worker.emit(RUN_ID, 'node.finished', { node_id: 'llm-1' });
      await worker.flush(RUN_ID);

      expect(beforeStored).toBe(0);
      const seqs = redis.published.map(({ message }) => (JSON.parse(message) as RunEvent[]).map((event) => event.seq));
      expect(seqs).toEqual([[1, 2, 3], [4]]);
      expect(new Set(redis.published.map(({ channel }) => channel))).toEqual(new Set([`test:run-events:${RUN_ID}`]));
    });

    it('should give a subscriber in another process every event once, in order, from the batched messages', async () => {
      const seen: number[] = [];
      const stop = await api.subscribe(RUN_ID, 0, (event) => seen.push(event.seq));

      worker.emit(RUN_ID, 'run.started', {});
      worker.emit(RUN_ID, 'node.started', { node_id: 'llm-1' });
      await tick();
      worker.emit(RUN_ID, 'node.finished', { node_id: 'llm-1' });
      worker.emit(RUN_ID, 'run.finished', { status: 'succeeded' });
      await worker.flush(RUN_ID);
      for (let turn = 0; turn < 5; turn++) await tick();
      stop();

      expect(seen).toEqual([1, 2, 3, 4]);
    });

    it('should give a subscriber the events published before it subscribed and stored after it read the log, with no later event', async () => {
      worker.emit(RUN_ID, 'run.started', {});
      worker.emit(RUN_ID, 'node.started', { node_id: 'llm-1' });
      await tick();
      const seen: number[] = [];
      const stop = await api.subscribe(RUN_ID, 0, (event) => seen.push(event.seq));
      expect(seen).toEqual([]);

      await worker.flush(RUN_ID);
      try {
        await waitFor(() => seen.length === 2, { what: 'the two events reached the subscriber' });
      } finally {
        stop();
      }

      expect(seen).toEqual([1, 2]);
    });

    it('should also take the one-event messages a process of the previous release publishes', async () => {
      const seen: number[] = [];
      const stop = await api.subscribe(RUN_ID, 0, (event) => seen.push(event.seq));

      redis.publish(`test:run-events:${RUN_ID}`, JSON.stringify({ seq: 1, type: 'run.started', data: {}, at: '' }));
      for (let turn = 0; turn < 5; turn++) await tick();
      stop();

      expect(seen).toEqual([1]);
    });
  });

  describe('close', () => {
    it('should hold at most RETAIN_FINISHED_RUNS finished logs, forgetting the oldest, and serve it from the database', async () => {
      const runIds = Array.from({ length: RETAIN_FINISHED_RUNS + 1 }, () => randomUUID());
      for (const runId of runIds) {
        sut.open(runId);
        sut.emit(runId, 'run.finished', { status: 'succeeded' });
        await sut.close(runId);
      }

      expect(sut.isLive(runIds[0])).toBe(false);
      expect(sut.isLive(runIds[1])).toBe(true);
      expect(sut.isLive(runIds[RETAIN_FINISHED_RUNS])).toBe(true);
      const replayed: string[] = [];
      const stop = await sut.subscribe(runIds[0], 0, (event) => replayed.push(event.type));
      stop();
      expect(replayed).toEqual(['run.finished']);
    });

    it('should not count a run that executes here again among the finished ones', async () => {
      const resumed = randomUUID();
      sut.open(resumed);
      await sut.close(resumed);
      sut.open(resumed);
      for (let i = 0; i < RETAIN_FINISHED_RUNS; i++) {
        const runId = randomUUID();
        sut.open(runId);
        await sut.close(runId);
      }

      expect(sut.isLive(resumed)).toBe(true);
    });
  });

  describe('openStored', () => {
    it('should number the events of a resumed run after its stored ones and replay both to a new subscriber', async () => {
      const runId = randomUUID();
      await sut.appendStored(runId, 'run.started', {});
      await sut.appendStored(runId, 'node.started', { node_id: 'llm-1' });

      await sut.openStored(runId);
      sut.emit(runId, 'node.finished', { node_id: 'llm-1' });
      await sut.flush(runId);
      const seen: Array<[number, string]> = [];
      const stop = await sut.subscribe(runId, 1, (event) => seen.push([event.seq, event.type]));
      stop();

      expect(seen).toEqual([
        [2, 'node.started'],
        [3, 'node.finished'],
      ]);
      const stored = await moduleRef
        .get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity))
        .find({ where: { runId }, order: { seq: 'ASC' } });
      expect(stored.map((event) => event.seq)).toEqual([1, 2, 3]);
    });

    it('should take in what another process stored while this one still held the log, numbering after it', async () => {
      const runId = randomUUID();
      sut.emit(runId, 'run.started', {});
      sut.emit(runId, 'approval.requested', { approval_id: 'a1' });
      await sut.close(runId);
      const live: Array<[number, string]> = [];
      const stop = await sut.subscribe(runId, 0, (event) => live.push([event.seq, event.type]));
      await sut.appendStored(runId, 'approval.resolved', { approval_id: 'a1' });

      await sut.openStored(runId);
      sut.emit(runId, 'tool.result', { call_id: 'call_0' });
      await sut.flush(runId);
      stop();

      const stored = await moduleRef
        .get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity))
        .find({ where: { runId }, order: { seq: 'ASC' } });
      expect(stored.map((event) => [event.seq, event.type])).toEqual([
        [1, 'run.started'],
        [2, 'approval.requested'],
        [3, 'approval.resolved'],
        [4, 'tool.result'],
      ]);
      expect(live).toEqual(stored.map((event) => [event.seq, event.type]));
    });
  });
});
