import { userPrincipal } from '../../../test/factories/run.factory';
import {
  type Data,
  definition,
  edge,
  fakeHandlers,
  handler,
  node,
  type RecordedNode,
  recordingRecorder,
} from '../../../test/factories/engine-graph.factory';
import { type NodeRecorder, WorkflowEngine } from './engine';
import type { NodeHandlers } from '../nodes/node-handlers';
import type { NodeServices } from '../nodes/node-handler';
import type { RunContext } from './run-context';
import type { RunEventType } from '../../runs/run-event-types';
import { AwaitingApprovalError } from '../../agent/approval-gate';
import { RunCheckpointer, toRunState } from './run-checkpointer';

describe(`${WorkflowEngine.name} with parallel branches`, () => {
  let recorded: RecordedNode[];
  let events: Array<{ type: RunEventType; data: Record<string, unknown> }>;

  const recorder = (): NodeRecorder => recordingRecorder(recorded);
  const context = (overrides: Partial<RunContext> = {}): RunContext => ({
    runId: 'run-1',
    principal: userPrincipal(),
    depth: 0,
    signal: new AbortController().signal,
    emit: (type, data) => events.push({ type, data }),
    ...overrides,
  });

  /** start → a, start → b (each a `kind` node), a + b → join → end. */
  const diamond = (kind: string) =>
    definition(
      [
        node('start', 'start'),
        node('a', kind, { value: 'A' }),
        node('b', kind, { value: 'B' }),
        node('join', 'join'),
        node('end', 'end', { outputs: ['a', 'b', 'join'] }),
      ],
      [edge('start', 'a'), edge('start', 'b'), edge('a', 'join'), edge('b', 'join'), edge('join', 'end')],
    );
  const order = ['start', 'a', 'b', 'join', 'end'];
  const join = handler(({ scope }) =>
    Promise.resolve({ output: [scope.a, scope.b].map((input) => (input as { output: unknown } | undefined)?.output) }),
  );

  beforeEach(() => {
    recorded = [];
    events = [];
  });

  it('should run independent branches at the same time: each waits at a barrier only the other can open', async () => {
    let arrived = 0;
    let open: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => (open = resolve));
    const meet = handler(async ({ data }) => {
      arrived += 1;
      if (arrived === 2) open();
      await barrier;
      return { output: (data as Data).value };
    });
    const sut = new WorkflowEngine(
      { ...fakeHandlers, meet, join } as unknown as NodeHandlers,
      {} as NodeServices,
      recorder(),
    );

    const result = await sut.run(diamond('meet'), order, {}, context());

    expect(result.outputs).toEqual({ a: 'A', b: 'B', join: ['A', 'B'] });
  });

  it('should start a join only after every one of its inputs has finished', async () => {
    const releases = new Map<string, () => void>();
    const held = handler(
      ({ data }) =>
        new Promise((resolve) =>
          releases.set((data as Data).value as string, () => resolve({ output: (data as Data).value })),
        ),
    );
    const sut = new WorkflowEngine(
      { ...fakeHandlers, held, join } as unknown as NodeHandlers,
      {} as NodeServices,
      recorder(),
    );

    const running = sut.run(diamond('held'), order, {}, context());
    await waitUntil(() => releases.size === 2);
    releases.get('B')?.();
    await waitUntil(() => events.some((event) => event.type === 'node.finished' && event.data.node_id === 'b'));
    expect(recorded.map((run) => run.node)).toEqual(['start', 'a', 'b']);
    releases.get('A')?.();
    const result = await running;

    expect(result.outputs).toEqual({ a: 'A', b: 'B', join: ['A', 'B'] });
    const lifecycle = events
      .filter((event) => event.type === 'node.started' || event.type === 'node.finished')
      .map((event) => `${event.type === 'node.started' ? '+' : '-'}${String(event.data.node_id)}`);
    expect(lifecycle).toEqual(['+start', '-start', '+a', '+b', '-b', '-a', '+join', '-join', '+end', '-end']);
  });

  it('should stop the other branch when one fails, and fail the run with the first failure', async () => {
    const waits = handler(
      ({ run }) =>
        new Promise((_resolve, reject) =>
          run.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        ),
    );
    const sut = new WorkflowEngine(
      { ...fakeHandlers, waits, join } as unknown as NodeHandlers,
      {} as NodeServices,
      recorder(),
    );
    const graph = definition(
      [node('start', 'start'), node('slow', 'waits'), node('broken', 'fail'), node('join', 'join'), node('end', 'end')],
      [
        edge('start', 'slow'),
        edge('start', 'broken'),
        edge('slow', 'join'),
        edge('broken', 'join'),
        edge('join', 'end'),
      ],
    );

    const running = sut.run(graph, ['start', 'slow', 'broken', 'join', 'end'], {}, context());

    await expect(running).rejects.toMatchObject({ message: 'node "broken" (fail) failed: backend said no' });
    expect(recorded).toEqual([
      { node: 'start', status: 'succeeded', error: undefined },
      { node: 'slow', status: 'cancelled', error: 'stopped because node "broken" failed on another branch' },
      { node: 'broken', status: 'failed', error: 'backend said no' },
    ]);
  });

  it('should let the other branch finish, start nothing more, and wait when one branch waits for a person', async () => {
    let release: () => void = () => undefined;
    const asks = handler(() => Promise.reject(new AwaitingApprovalError()));
    // Like a real node, it gives up when its run signal aborts.
    const slow = handler(
      ({ data, run }) =>
        new Promise((resolve, reject) => {
          release = () => resolve({ output: (data as Data).value });
          run.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
    );
    const sut = new WorkflowEngine(
      { ...fakeHandlers, asks, slow, join } as unknown as NodeHandlers,
      {} as NodeServices,
      recorder(),
    );
    const graph = definition(
      [
        node('start', 'start'),
        node('a', 'asks'),
        node('b', 'slow', { value: 'B' }),
        node('join', 'join'),
        node('end', 'end'),
      ],
      [edge('start', 'a'), edge('start', 'b'), edge('a', 'join'), edge('b', 'join'), edge('join', 'end')],
    );

    const running = sut.run(graph, ['start', 'a', 'b', 'join', 'end'], {}, context());
    await waitUntil(() => recorded.length === 3);
    release();

    await expect(running).rejects.toBeInstanceOf(AwaitingApprovalError);
    // The waiting node's run stays open for the resume; the other branch finished; nothing after them started.
    expect(recorded).toEqual([
      { node: 'start', status: 'succeeded', error: undefined },
      { node: 'a' },
      { node: 'b', status: 'succeeded', error: undefined },
    ]);
  });

  it('should run no more nodes at once than its bound', async () => {
    let inFlight = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const counted = handler(({ data }) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      return new Promise((resolve) =>
        releases.push(() => {
          inFlight -= 1;
          resolve({ output: (data as Data).value });
        }),
      );
    });
    const sut = new WorkflowEngine(
      { ...fakeHandlers, counted } as unknown as NodeHandlers,
      {} as NodeServices,
      recorder(),
      2,
    );
    const graph = definition(
      [
        node('start', 'start'),
        node('a', 'counted', { value: 1 }),
        node('b', 'counted', { value: 2 }),
        node('c', 'counted', { value: 3 }),
        node('end', 'end', { outputs: ['a', 'b', 'c'] }),
      ],
      [
        edge('start', 'a'),
        edge('start', 'b'),
        edge('start', 'c'),
        edge('a', 'end'),
        edge('b', 'end'),
        edge('c', 'end'),
      ],
    );

    const running = sut.run(graph, ['start', 'a', 'b', 'c', 'end'], {}, context());
    for (let released = 0; released < 3; released += 1) {
      await waitUntil(() => releases.length > released);
      releases[released]();
    }
    const result = await running;

    expect(result.outputs).toEqual({ a: 1, b: 2, c: 3 });
    expect(peak).toBe(2);
  });

  it('should not run again the nodes a resumed run finished on either branch', async () => {
    const ran: string[] = [];
    const value = handler(({ node: current, data }) => {
      ran.push(current.id);
      return Promise.resolve({ output: (data as Data).value });
    });
    const sut = new WorkflowEngine(
      { ...fakeHandlers, value, join } as unknown as NodeHandlers,
      {} as NodeServices,
      recorder(),
    );
    const stored = toRunState({ nodes: { start: { output: { output: {} } }, a: { output: { output: 'stored A' } } } });
    const checkpoint = new RunCheckpointer('run-1', { save: () => Promise.resolve() }, stored, true);

    const result = await sut.run(diamond('value'), order, {}, context({ checkpoint }));

    expect(ran).toEqual(['b']);
    expect(result.outputs).toEqual({ a: 'stored A', b: 'B', join: ['stored A', 'B'] });
  });
});

/** Lets pending promise callbacks run until `condition` holds. */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn += 1) {
    if (turn > 1000) throw new Error('the condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
