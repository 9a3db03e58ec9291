import { userPrincipal } from '../../../test/factories/run.factory';
import { type EndedNodeRun, type NodeRecorder, WorkflowEngine } from './engine';
import type { NodeHandler, NodeServices } from '../nodes/node-handler';
import type { NodeHandlers } from '../nodes/node-handlers';
import type { RunContext } from './run-context';
import { WorkflowRunError } from './run-context';
import type { RunEventType } from '../../runs/run-event-types';
import type { CheckpointStepWrites } from '../../runs/run-checkpoint-store';
import { RunCheckpointer, type RunState, toRunState } from './run-checkpointer';
import {
  edge,
  definition,
  fakeHandlers,
  node,
  type RecordedNode,
  recordingRecorder,
} from '../../../test/factories/engine-graph.factory';

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
      // One write per node run that starts, the ended pure nodes with it; the last ones go to the caller, who
      // stores them with the run's end.
      expect(calls).toEqual(['started a ended start succeeded']);
      expect(result.unstored.map(endedCall)).toEqual(['ended end succeeded']);
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
      expect(calls).toEqual([]);
      expect(result.unstored.map(endedCall)).toEqual(['ended end succeeded']);
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

  describe('node run writes', () => {
    /** A recorder whose INSERT of a node run that starts is answered only when the test says so. */
    const slowRecorder = (log: string[], stored: Promise<void>, failure?: Error): NodeRecorder => ({
      ...recordingRecorder([]),
      nodeStarted: async (_runId, started) => {
        log.push(`insert ${started.id}`);
        await stored;
        if (failure) throw failure;
        log.push(`stored ${started.id}`);
        return `run-of-${started.id}`;
      },
      nodeFinished: (nodeRunId, result) => {
        log.push(`finished ${nodeRunId} ${result.status}`);
        return Promise.resolve();
      },
    });
    /** A node that saves a step checkpoint once it started its work. */
    const stepping = (log: string[]) =>
      ({
        ...fakeHandlers,
        value: {
          ...(fakeHandlers as unknown as Record<string, NodeHandler>).value,
          entry: true,
          run: async ({ step }: { step?: { save(state: unknown): Promise<void> } }) => {
            log.push('work started');
            await step?.save({ round: 1 });
            log.push('step saved');
            return { output: 1 };
          },
        },
      }) as unknown as NodeHandlers;
    const graph = definition([node('a', 'value'), node('end', 'end', { outputs: ['a'] })], [edge('a', 'end')]);
    const checkpointer = (log: string[]) =>
      new RunCheckpointer(
        'run-1',
        {
          save: (_runId, _state, step) => {
            log.push(step?.nodeFinished ? `checkpoint end ${step.nodeFinished.nodeRunId}` : 'checkpoint step');
            return Promise.resolve();
          },
        },
        toRunState(null),
        false,
      );

    it("should start a node's work while its node run is written, and checkpoint it only once that is stored", async () => {
      const log: string[] = [];
      let store: () => void = () => undefined;
      const stored = new Promise<void>((resolve) => (store = resolve));
      sut = new WorkflowEngine(stepping(log), {} as NodeServices, slowRecorder(log, stored));

      const walk = sut.run(graph, ['a', 'end'], {}, { ...context(), checkpoint: checkpointer(log) });
      await new Promise((resolve) => setImmediate(resolve));
      expect(log).toEqual(['insert a', 'work started']);
      store();
      await walk;

      expect(log).toEqual([
        'insert a',
        'work started',
        'stored a',
        'checkpoint step',
        'step saved',
        'checkpoint end run-of-a',
        'insert end',
        'stored end',
        'checkpoint end run-of-end',
      ]);
    });

    it('should fail the run with the error of a node run that could not be stored, and checkpoint nothing of it', async () => {
      const log: string[] = [];
      sut = new WorkflowEngine(
        stepping(log),
        {} as NodeServices,
        slowRecorder(log, Promise.resolve(), new Error('database unavailable')),
      );

      await expect(sut.run(graph, ['a', 'end'], {}, { ...context(), checkpoint: checkpointer(log) })).rejects.toThrow(
        'database unavailable',
      );
      expect(log).toEqual(['insert a', 'work started']);
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
