import type { MessageEvent } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import { DataSource, type Repository } from 'typeorm';
import { runsTestingModule } from '../../test/support/runs-testing-module';
import { countStatements } from '../../test/support/statement-counter';
import { waitFor } from '../../test/support/wait-for';
import { RunEventEntity } from './run-event.entity';
import { RECONNECT_AFTER_MS, RunEventsService } from './run-events.service';
import type { RunEvent } from './run-event-types';
import type { RunRedis } from './run-redis';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

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
    /** Stands in for Redis pub/sub between the processes that share it. */
    class FakeRedis {
      readonly published: Array<{ channel: string; message: string }> = [];
      private readonly handlers = new Map<string, Set<(message: string) => void>>();

      channel(name: string): string {
        return `test:${name}`;
      }

      publish(channel: string, message: string): void {
        this.published.push({ channel, message });
        for (const handler of this.handlers.get(channel) ?? []) handler(message);
      }

      listen(channel: string, handler: (message: string) => void): Promise<() => void> {
        const handlers = this.handlers.get(channel) ?? new Set();
        this.handlers.set(channel, handlers.add(handler));
        return Promise.resolve(() => handlers.delete(handler));
      }
    }
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    let redis: FakeRedis;
    /** The process that executes the run, and another one that only serves its events. */
    let worker: RunEventsService;
    let api: RunEventsService;

    beforeEach(() => {
      redis = new FakeRedis();
      const repository = moduleRef.get<Repository<RunEventEntity>>(getRepositoryToken(RunEventEntity));
      const config = moduleRef.get<AppConfig>(APP_CONFIG);
      worker = new RunEventsService(repository, config, redis as unknown as RunRedis);
      api = new RunEventsService(repository, config, redis as unknown as RunRedis);
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

      const stream = collect(api.stream(RUN_ID, 0, () => Promise.resolve(logComplete)));
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
      const stream = collect(api.stream(RUN_ID, 0, () => Promise.resolve(logComplete)));
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

    it('should also take the one-event messages a process of the previous release publishes', async () => {
      const seen: number[] = [];
      const stop = await api.subscribe(RUN_ID, 0, (event) => seen.push(event.seq));

      redis.publish(`test:run-events:${RUN_ID}`, JSON.stringify({ seq: 1, type: 'run.started', data: {}, at: '' }));
      for (let turn = 0; turn < 5; turn++) await tick();
      stop();

      expect(seen).toEqual([1]);
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

  describe('stream', () => {
    it('should replay past events, then send live ones, and complete after run.finished', async () => {
      sut.emit(RUN_ID, 'run.started', {});
      const stream = collect(sut.stream(RUN_ID, 0, () => Promise.resolve(false)));
      await stream.received(1);
      sut.emit(RUN_ID, 'node.started', { node_id: 'start' });
      sut.emit(RUN_ID, 'run.finished', { status: 'succeeded' });
      sut.emit(RUN_ID, 'node.started', { node_id: 'late' });
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
      sut.emit(RUN_ID, 'run.started', {});
      sut.emit(RUN_ID, 'node.started', { node_id: 'start' });
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
      sut.emit(RUN_ID, 'run.started', {});
      sut.emit(RUN_ID, 'node.started', { node_id: 'start' });
      sut.emit(RUN_ID, 'run.finished', { status: 'succeeded' });

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
      await sut.appendStored(STORED_RUN_ID, 'run.started', {});
      await sut.appendStored(STORED_RUN_ID, 'approval.requested', { call_id: 'c1' });
      const stream = collect(sut.stream(STORED_RUN_ID, 0, () => Promise.resolve(false)));
      await stream.received(2);

      await sut.appendStored(STORED_RUN_ID, 'approval.resolved', { call_id: 'c1' });
      await stream.received(3);
      await sut.openStored(STORED_RUN_ID);
      sut.emit(STORED_RUN_ID, 'tool.result', { call_id: 'c1' });
      sut.emit(STORED_RUN_ID, 'run.finished', { status: 'succeeded' });
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
        sut.emit(RUN_ID, 'run.started', {});
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
});
