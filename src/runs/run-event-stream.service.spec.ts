import type { MessageEvent } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import type { Repository } from 'typeorm';
import { type FakeRunRedis, queueModeEventLogs } from '../../test/support/fake-run-redis';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { RunEventEntity } from './run-event.entity';
import { RECONNECT_AFTER_MS, RunEventStreamService } from './run-event-stream.service';
import { RunEventsService } from './run-events.service';
import { RunLeasesService } from './run-leases.service';
import { RunQueriesService } from './run-queries.service';
import type { RunRedis } from './run-redis';

const RUN_ID = '11111111-1111-4111-8111-111111111111';
const STORED_RUN_ID = '33333333-3333-4333-8333-333333333333';

/** Records what a stream sends; `received(n)` resolves once n messages are in, `done` once it completes. */
function collect(stream: Observable<MessageEvent>) {
  const messages: MessageEvent[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  let completed = false;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const subscription = stream.subscribe({
    next: (message) => {
      messages.push(message);
      for (const wait of waiting) if (messages.length >= wait.count) wait.resolve();
    },
    complete: () => {
      completed = true;
      resolveDone();
    },
  });
  const received = (count: number) =>
    messages.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve }));
  return { messages, done, received, isCompleted: () => completed, unsubscribe: () => subscription.unsubscribe() };
}

describe(RunEventStreamService.name, () => {
  let moduleRef: TestingModule;
  let events: RunEventsService;
  let sut: RunEventStreamService;

  beforeEach(async () => {
    moduleRef = await runsTestingModule([RunEventsService, RunEventStreamService, RunQueriesService, RunLeasesService]);
    events = moduleRef.get(RunEventsService);
    sut = moduleRef.get(RunEventStreamService);
  });

  afterEach(() => moduleRef.close());

  describe('stream', () => {
    it('should replay past events, then send live ones, and complete after run.finished', async () => {
      events.emit(RUN_ID, 'run.started', {});
      const stream = collect(sut.stream(RUN_ID, 0, () => Promise.resolve(false)));
      await stream.received(1);
      events.emit(RUN_ID, 'node.started', { node_id: 'start' });
      events.emit(RUN_ID, 'run.finished', { status: 'succeeded' });
      events.emit(RUN_ID, 'node.started', { node_id: 'late' });
      await stream.done;

      expect(stream.messages.map(({ id, type }) => ({ id, type }))).toEqual([
        { id: '1', type: 'run.started' },
        { id: '2', type: 'node.started' },
        { id: '3', type: 'run.finished' },
      ]);
      expect(stream.messages[1].data).toEqual({ node_id: 'start', at: expect.any(String) as string });
      expect(stream.isCompleted()).toBe(true);
    });

    it('should end open streams, and streams opened later at once, with a retry hint and the last id on shutdown', async () => {
      events.emit(RUN_ID, 'run.started', {});
      events.emit(RUN_ID, 'node.started', { node_id: 'start' });
      const open = collect(sut.stream(RUN_ID, 0, () => Promise.resolve(false)));
      await open.received(2);

      sut.beforeApplicationShutdown();
      await open.done;
      const later = collect(sut.stream(RUN_ID, 1, () => Promise.resolve(false)));
      await later.done;

      expect(open.messages.at(-1)).toEqual({
        id: '2',
        retry: RECONNECT_AFTER_MS,
        comment: expect.any(String) as string,
      });
      expect(later.messages).toEqual([{ id: '1', retry: RECONNECT_AFTER_MS, comment: expect.any(String) as string }]);
      expect(open.isCompleted() && later.isCompleted()).toBe(true);
    });

    it('should resume after the given sequence number from memory', async () => {
      events.emit(RUN_ID, 'run.started', {});
      events.emit(RUN_ID, 'node.started', { node_id: 'start' });
      events.emit(RUN_ID, 'run.finished', { status: 'succeeded' });

      const stream = collect(sut.stream(RUN_ID, 1, () => Promise.resolve(true)));
      await stream.done;

      expect(stream.messages.map((message) => message.id)).toEqual(['2', '3']);
      expect(stream.isCompleted()).toBe(true);
    });

    it('should resume after the given sequence number from the stored log of a run not held here', async () => {
      const types = ['run.started', 'node.started', 'run.finished'] as const;
      await moduleRef.get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity)).insert(
        types.map((type, index) => ({
          id: randomUUID(),
          runId: STORED_RUN_ID,
          seq: index + 1,
          type,
          data: {},
          createdAt: new Date(),
        })),
      );

      const stream = collect(sut.stream(STORED_RUN_ID, 1, () => Promise.resolve(true)));
      await stream.done;

      expect(stream.messages.map(({ id, type }) => ({ id, type }))).toEqual([
        { id: '2', type: 'node.started' },
        { id: '3', type: 'run.finished' },
      ]);
      expect(stream.isCompleted()).toBe(true);
    });

    it('should follow a run that is not executing here until it ends: appended events, then its live log once it starts here', async () => {
      await events.appendStored(STORED_RUN_ID, 'run.started', {});
      await events.appendStored(STORED_RUN_ID, 'approval.requested', { call_id: 'c1' });
      const stream = collect(sut.stream(STORED_RUN_ID, 0, () => Promise.resolve(false)));
      await stream.received(2);

      await events.appendStored(STORED_RUN_ID, 'approval.resolved', { call_id: 'c1' });
      await stream.received(3);
      await events.openStored(STORED_RUN_ID);
      events.emit(STORED_RUN_ID, 'tool.result', { call_id: 'c1' });
      events.emit(STORED_RUN_ID, 'run.finished', { status: 'succeeded' });
      await stream.done;

      expect(stream.messages.map(({ id, type }) => ({ id, type }))).toEqual([
        { id: '1', type: 'run.started' },
        { id: '2', type: 'approval.requested' },
        { id: '3', type: 'approval.resolved' },
        { id: '4', type: 'tool.result' },
        { id: '5', type: 'run.finished' },
      ]);
    });

    it('should end the stream of a finished run whose stored log lacks run.finished', async () => {
      const stream = collect(sut.stream('22222222-2222-4222-8222-222222222222', 0, () => Promise.resolve(true)));
      await stream.done;

      expect(stream.messages).toEqual([]);
      expect(stream.isCompleted()).toBe(true);
    });

    it('should stay open for a run that has not finished, sending heartbeat comments', async () => {
      jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
      try {
        events.emit(RUN_ID, 'run.started', {});
        let finishedAsked: () => void = () => undefined;
        const asked = new Promise<void>((resolve) => (finishedAsked = resolve));
        const stream = collect(
          sut.stream(RUN_ID, 0, () => {
            finishedAsked();
            return Promise.resolve(false);
          }),
        );
        await asked;
        jest.advanceTimersByTime(15_000);

        expect(stream.messages.map((message) => message.type ?? message.comment)).toEqual([
          'run.started',
          'keep-alive',
        ]);
        expect(stream.isCompleted()).toBe(false);
        stream.unsubscribe();
      } finally {
        jest.useRealTimers();
      }
    });
  });

  describe('queue mode (live fan-out through Redis)', () => {
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    let redis: FakeRunRedis;
    /** The process that executes the run, and another one that only serves its events. */
    let worker: RunEventsService;
    let api: RunEventsService;
    let apiStreams: RunEventStreamService;

    beforeEach(() => {
      ({ redis, worker, api } = queueModeEventLogs(moduleRef));
      apiStreams = new RunEventStreamService(moduleRef.get(RunQueriesService), api, moduleRef.get(RunLeasesService));
    });

    afterEach(() => jest.useRealTimers());

    // Made by hand, so the testing module does not shut them down: their pending writes would outlive the test
    // (and its database) on a timer.
    afterEach(() => Promise.all([worker, api].map((service) => service.onApplicationShutdown())));

    /** The worker's event writes wait for `store()`: a database slower than any fixed wait. */
    const slowWorker = () => {
      const repository = moduleRef.get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity));
      let store: () => void = () => undefined;
      const stored = new Promise<void>((resolve) => (store = resolve));
      const manager = new Proxy(repository.manager, {
        get: (target, key, receiver) =>
          key === 'query'
            ? async (...args: Parameters<typeof target.query>) => {
                await stored;
                return (await target.query(...args)) as unknown;
              }
            : (Reflect.get(target, key, receiver) as unknown),
      });
      const slow = new Proxy(repository, {
        get: (target, key, receiver) => (key === 'manager' ? manager : (Reflect.get(target, key, receiver) as unknown)),
      });
      return {
        sut: new RunEventsService(slow, moduleRef.get<AppConfig>(APP_CONFIG), redis as unknown as RunRedis),
        store,
      };
    };

    it('should give the stream of a run another process finished its run.finished, however long that process takes to store it', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const slow = slowWorker();
      // Its row says finished, but the worker still holds it while it stores the end of the log.
      let logComplete = false;
      slow.sut.emit(RUN_ID, 'run.started', {});
      slow.sut.emit(RUN_ID, 'run.finished', { status: 'succeeded' });
      await tick();

      const stream = collect(apiStreams.stream(RUN_ID, 0, () => Promise.resolve(logComplete)));
      for (let second = 0; second < 60; second++) await jest.advanceTimersByTimeAsync(1_000);
      const completedEarly = stream.isCompleted();
      slow.store();
      await slow.sut.flush(RUN_ID);
      logComplete = true;
      for (let turn = 0; turn < 5; turn++) await tick();
      jest.useRealTimers();

      expect(completedEarly).toBe(false);
      expect(stream.messages.filter((message) => message.type).map(({ id, type }) => ({ id, type }))).toEqual([
        { id: '1', type: 'run.started' },
        { id: '2', type: 'run.finished' },
      ]);
      expect(stream.isCompleted()).toBe(true);
    });

    it('should end, at its next heartbeat, the stream of a run whose worker died before storing its run.finished', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      await worker.appendStored(RUN_ID, 'run.started', {});
      let logComplete = false;
      const stream = collect(apiStreams.stream(RUN_ID, 0, () => Promise.resolve(logComplete)));
      await stream.received(1);
      await jest.advanceTimersByTimeAsync(15_000);
      const openWhileHeld = !stream.isCompleted();

      // The dead worker's lease ran out: nothing more will be stored.
      logComplete = true;
      await jest.advanceTimersByTimeAsync(15_000);
      await stream.done;
      jest.useRealTimers();

      expect(openWhileHeld).toBe(true);
      expect(stream.messages.filter((message) => message.type).map(({ type }) => type)).toEqual(['run.started']);
    });
  });
});
