import { Type } from '@sinclair/typebox';
import { userPrincipal } from '../../../test/factories/run.factory';
import type { WorkflowDefinition, WorkflowNode } from '../definition.schema';
import { type EndedNodeRun, type NodeRecorder, WorkflowEngine } from './engine';
import type { NodeHandler, NodeServices } from '../nodes/node-handler';
import type { NodeHandlers } from '../nodes/node-handlers';
import type { RunContext } from './run-context';
import { WorkflowRunError } from './run-context';
import { AwaitingApprovalError } from '../../agent/approval-gate';
import type { RunEventType } from '../../runs/run-event-types';
import type { CheckpointStepWrites } from '../../runs/run-checkpoint-store';
import { RunCheckpointer, type RunState, toRunState } from './run-checkpointer';

type Data = { value?: unknown; outputs?: string[] };

/** Fake node types: what each one does is visible in the test, no model or tool involved. */
const handler = (run: NodeHandler['run'], flags: Partial<NodeHandler> = {}): NodeHandler => ({
  data: Type.Any(),
  output: () => ({}),
  run,
  ...flags,
});
const fakeHandlers = {
  start: handler(({ scope }) => Promise.resolve({ output: scope.inputs }), { entry: true }),
  value: handler(({ data }) => Promise.resolve({ output: (data as Data).value })),
  decide: handler(({ data }) => Promise.resolve({ output: (data as Data).value }), { branches: true }),
  fail: handler(() => Promise.reject(new Error('backend said no'))),
  end: handler(
    ({ data, scope }) =>
      Promise.resolve({
        outputs: Object.fromEntries(
          ((data as Data).outputs ?? []).map((id) => [
            id,
            (scope[id] as { output?: unknown } | undefined)?.output ?? null,
          ]),
        ),
      }),
    { exit: true },
  ),
} as unknown as NodeHandlers;

const node = (id: string, type: string, data: Data = {}) => ({ id, type, data }) as unknown as WorkflowNode;
const edge = (source: string, target: string, condition?: boolean) =>
  condition === undefined ? { source, target } : { source, target, condition };

const definition = (nodes: WorkflowNode[], edges: ReturnType<typeof edge>[]) =>
  ({ name: 'graph', nodes, edges }) as unknown as WorkflowDefinition;

type RecordedNode = { node: string; status?: string; error?: string };

/** A node recorder that keeps, in order, each node run it is told about and how it ended. */
function recordingRecorder(recorded: RecordedNode[]): NodeRecorder {
  return {
    nodeStarted: (_runId, started) => {
      recorded.push({ node: started.id });
      return Promise.resolve(String(recorded.length - 1));
    },
    runningNodeRun: () => Promise.resolve(null),
    nodeFinished: (nodeRunId, result) => {
      Object.assign(recorded[Number(nodeRunId)], { status: result.status, error: result.error });
      return Promise.resolve();
    },
    nodeEnded: (_runId, ended) => {
      for (const { node: pure, result } of ended)
        recorded.push({ node: pure.id, status: result.status, error: result.error });
      return Promise.resolve();
    },
    hasNodeRun: () => Promise.resolve(false),
  };
}

describe(WorkflowEngine.name, () => {
  let recorded: RecordedNode[];
  let events: Array<{ type: RunEventType; data: Record<string, unknown> }>;
  let sut: WorkflowEngine;

  const context = (signal = new AbortController().signal): RunContext => ({
    runId: 'run-1',
    principal: userPrincipal(),
    depth: 0,
    signal,
    emit: (type, data) => events.push({ type, data }),
  });

  beforeEach(() => {
    recorded = [];
    events = [];
    sut = new WorkflowEngine(fakeHandlers, {} as NodeServices, recordingRecorder(recorded));
  });

  /** start → decide → (true: yes | false: no) → end, with `decide` answering `choice`. */
  const branching = (choice: boolean) =>
    definition(
      [
        node('start', 'start'),
        node('decide', 'decide', { value: choice }),
        node('yes', 'value', { value: 'took yes' }),
        node('no', 'value', { value: 'took no' }),
        node('end', 'end', { outputs: ['yes', 'no'] }),
      ],
      [
        edge('start', 'decide'),
        edge('decide', 'yes', true),
        edge('decide', 'no', false),
        edge('yes', 'end'),
        edge('no', 'end'),
      ],
    );
  const order = ['start', 'decide', 'yes', 'no', 'end'];

  it('should run the branch a condition chooses and skip the other one', async () => {
    const result = await sut.run(branching(true), order, {}, context());

    expect(result.outputs).toEqual({ yes: 'took yes', no: null });
    expect(recorded.map((run) => run.node)).toEqual(['start', 'decide', 'yes', 'end']);
    expect(events.filter((event) => event.type === 'node.started').map((event) => event.data.node_id)).toEqual([
      'start',
      'decide',
      'yes',
      'end',
    ]);
  });

  it('should take the false branch when the condition answers false', async () => {
    const result = await sut.run(branching(false), order, {}, context());

    expect(result.outputs).toEqual({ yes: null, no: 'took no' });
    expect(recorded.map((run) => run.node)).toEqual(['start', 'decide', 'no', 'end']);
  });

  it('should pass the run inputs to the start node and each output to the nodes after it', async () => {
    const graph = definition(
      [
        node('start', 'start'),
        node('a', 'value', { value: 1 }),
        node('b', 'value', { value: 2 }),
        node('end', 'end', { outputs: ['start', 'a', 'b'] }),
      ],
      [edge('start', 'a'), edge('a', 'b'), edge('b', 'end')],
    );

    const result = await sut.run(graph, ['start', 'a', 'b', 'end'], { question: 'Hi?' }, context());

    expect(result.outputs).toEqual({ start: { question: 'Hi?' }, a: 1, b: 2 });
  });

  it('should fail the run naming the node that failed, record it failed and run nothing after it', async () => {
    const graph = definition(
      [node('start', 'start'), node('broken', 'fail'), node('after', 'value', { value: 'x' }), node('end', 'end')],
      [edge('start', 'broken'), edge('broken', 'after'), edge('after', 'end')],
    );

    const running = sut.run(graph, ['start', 'broken', 'after', 'end'], {}, context());

    await expect(running).rejects.toThrow(WorkflowRunError);
    await expect(running).rejects.toMatchObject({
      message: 'node "broken" (fail) failed: backend said no',
      nodeId: 'broken',
    });
    expect(recorded).toEqual([
      { node: 'start', status: 'succeeded', error: undefined },
      { node: 'broken', status: 'failed', error: 'backend said no' },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'node.finished',
      data: {
        node_id: 'broken',
        status: 'failed',
        duration_ms: expect.any(Number) as number,
        error: 'backend said no',
      },
    });
  });

  it('should fail when every branch to an end was skipped', async () => {
    const graph = definition(
      [node('start', 'start'), node('decide', 'decide', { value: false }), node('end', 'end')],
      [edge('start', 'decide'), edge('decide', 'end', true)],
    );

    await expect(sut.run(graph, ['start', 'decide', 'end'], {}, context())).rejects.toThrow(
      'the run ended without reaching an end node (every branch to an end was skipped)',
    );
  });

  describe('pure nodes', () => {
    /** start (pure) → a (value, not pure) → end (pure), checkpointed through a writer that records each save. */
    const graph = definition(
      [node('start', 'start'), node('a', 'value', { value: 1 }), node('end', 'end', { outputs: ['start', 'a'] })],
      [edge('start', 'a'), edge('a', 'end')],
    );
    const pureHandlers = {
      ...fakeHandlers,
      start: { ...(fakeHandlers as unknown as Record<string, NodeHandler>).start, pure: true },
      end: { ...(fakeHandlers as unknown as Record<string, NodeHandler>).end, pure: true },
    } as unknown as NodeHandlers;
    let writes: Array<{ step?: CheckpointStepWrites }>;
    let calls: string[];
    const endedCall = (ended: EndedNodeRun) => `ended ${ended.node.id} ${ended.result.status}`;
    const recorder = (stored: readonly string[]): NodeRecorder => ({
      nodeStarted: (_runId, started, ended = []) => {
        calls.push(['started', started.id, ...ended.map(endedCall)].join(' '));
        return Promise.resolve(`run-of-${started.id}`);
      },
      runningNodeRun: () => Promise.resolve(null),
      nodeFinished: (nodeRunId, result) => {
        calls.push(`finished ${nodeRunId} ${result.status}`);
        return Promise.resolve();
      },
      nodeEnded: (_runId, ended) => {
        calls.push(ended.map(endedCall).join(' '));
        return Promise.resolve();
      },
      hasNodeRun: (_runId, nodeId) => Promise.resolve(stored.includes(nodeId)),
    });
    const checkpointer = (state: RunState, resumed: boolean) =>
      new RunCheckpointer(
        'run-1',
        {
          save: (_runId, _state, step) => {
            writes.push({ step });
            return Promise.resolve();
          },
        },
        state,
        resumed,
      );

    beforeEach(() => {
      writes = [];
      calls = [];
    });

    it('should write the node run of a pure node with the next node run that starts, and checkpoint only the others', async () => {
      sut = new WorkflowEngine(pureHandlers, {} as NodeServices, recorder([]));

      const result = await sut.run(
        graph,
        ['start', 'a', 'end'],
        { q: 1 },
        {
          ...context(),
          checkpoint: checkpointer(toRunState(null), false),
        },
      );

      expect(result.outputs).toEqual({ start: { q: 1 }, a: 1 });
      // One write per node run that starts, the ended pure nodes with it; the last ones once the walk is over.
      expect(calls).toEqual(['started a ended start succeeded', 'ended end succeeded']);
      expect(writes).toEqual([
        { step: { nodeFinished: { nodeRunId: 'run-of-a', status: 'succeeded', output: { output: 1 } } } },
      ]);
      expect(events.map((event) => `${event.type} ${String(event.data.node_id)}`)).toEqual([
        'node.started start',
        'node.finished start',
        'node.started a',
        'node.finished a',
        'node.started end',
        'node.finished end',
      ]);
    });

    it('should compute a pure node a resumed run stored before again, without a second node run or events', async () => {
      sut = new WorkflowEngine(pureHandlers, {} as NodeServices, recorder(['start']));
      const stored = toRunState({ nodes: { a: { output: { output: 1 } } } });

      const result = await sut.run(
        graph,
        ['start', 'a', 'end'],
        { q: 1 },
        {
          ...context(),
          checkpoint: checkpointer(stored, true),
        },
      );

      expect(result.outputs).toEqual({ start: { q: 1 }, a: 1 });
      expect(calls).toEqual(['ended end succeeded']);
      expect(writes).toEqual([]);
      expect(events.map((event) => `${event.type} ${String(event.data.node_id)}`)).toEqual([
        'node.started end',
        'node.finished end',
      ]);
    });

    it('should store a pure node that failed as one failed node run', async () => {
      const fail = (fakeHandlers as unknown as Record<string, NodeHandler>).fail;
      const failing = { ...pureHandlers, end: { ...fail, exit: true, pure: true } } as unknown as NodeHandlers;
      sut = new WorkflowEngine(failing, {} as NodeServices, recorder([]));

      await expect(
        sut.run(graph, ['start', 'a', 'end'], {}, { ...context(), checkpoint: checkpointer(toRunState(null), false) }),
      ).rejects.toThrow('node "end" (end) failed: backend said no');

      expect(calls.at(-1)).toBe('ended end failed');
    });
  });

  it('should start no node once the run is cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the user'));

    await expect(sut.run(branching(true), order, {}, context(controller.signal))).rejects.toThrow(
      'cancelled by the user',
    );
    expect(recorded).toEqual([]);
  });
});

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
