import type { CheckpointStepWrites } from '../../runs/run-checkpoint-store';
import { RunCheckpointer, toRunState, type CheckpointWriter } from './run-checkpointer';

/** Lets queued microtasks and one turn of the event loop (the checkpointer waits one before a state write) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Resolves once `count` writes have started and wait to be ended. */
async function writerStarted(writer: SlowWriter, count: number): Promise<void> {
  for (let turn = 0; turn < 10 && writer.waiting < count; turn++) await settle();
  expect(writer.waiting).toBe(count);
}

/** A writer whose saves end when the test says, recording what each one got (the state as it was at the start). */
class SlowWriter implements CheckpointWriter {
  readonly saved: string[] = [];
  readonly steps: Array<CheckpointStepWrites | undefined> = [];
  private readonly pending: Array<() => void> = [];

  save(_runId: string, state: Record<string, unknown>, step?: CheckpointStepWrites): Promise<void> {
    const text = JSON.stringify(state);
    return new Promise((resolve) => {
      this.pending.push(() => {
        this.saved.push(text);
        this.steps.push(step);
        resolve();
      });
    });
  }

  endOne(): void {
    this.pending.shift()?.();
  }

  get waiting(): number {
    return this.pending.length;
  }
}

describe(RunCheckpointer.name, () => {
  it('should write one state at a time, in order, never an older state after a newer one', async () => {
    const writer = new SlowWriter();
    const sut = new RunCheckpointer('run-1', writer, toRunState(null), false);

    const first = sut.stepOf('llm-1').save({ round: 1 });
    await writerStarted(writer, 1);
    const second = sut.stepOf('llm-1').save({ round: 2 });
    await settle();
    expect(writer.waiting).toBe(1);
    writer.endOne();
    await first;
    await writerStarted(writer, 1);
    writer.endOne();
    await second;

    expect(writer.saved).toEqual([
      JSON.stringify({ nodes: { 'llm-1': { step: { round: 1 } } } }),
      JSON.stringify({ nodes: { 'llm-1': { step: { round: 2 } } } }),
    ]);
  });

  it('should store step states saved while a write runs together in the next write, each save resolving once stored', async () => {
    const writer = new SlowWriter();
    const sut = new RunCheckpointer('run-1', writer, toRunState(null), false);
    const resolved: string[] = [];
    const save = (name: string, step: unknown) =>
      sut
        .stepOf(name)
        .save(step)
        .then(() => resolved.push(name));

    const first = save('a', 1);
    await writerStarted(writer, 1);
    const joined = [save('b', 1), save('c', 1), save('d', 1)];
    writer.endOne();
    await first;
    await writerStarted(writer, 1);
    expect(resolved).toEqual(['a']);
    writer.endOne();
    await Promise.all(joined);

    expect(writer.saved).toEqual([
      JSON.stringify({ nodes: { a: { step: 1 } } }),
      JSON.stringify({ nodes: { a: { step: 1 }, b: { step: 1 }, c: { step: 1 }, d: { step: 1 } } }),
    ]);
    expect(resolved).toEqual(['a', 'b', 'c', 'd']);
  });

  it('should not fold a node end into a queued state write', async () => {
    const writer = new SlowWriter();
    const sut = new RunCheckpointer('run-1', writer, toRunState(null), false);

    const first = sut.stepOf('a').save(1);
    await writerStarted(writer, 1);
    const step = sut.stepOf('a').save(2);
    const finished = sut.nodeFinished('a', 'node-run-1', { output: 'done' });
    for (const expected of [1, 1, 1]) {
      await writerStarted(writer, expected);
      writer.endOne();
    }
    await Promise.all([first, step, finished]);

    expect(writer.saved).toHaveLength(3);
    expect(writer.steps.at(-1)).toEqual({
      nodeFinished: { nodeRunId: 'node-run-1', status: 'succeeded', output: { output: 'done' } },
    });
  });

  it('should give back finished outputs and step states of a stored checkpoint', () => {
    const sut = new RunCheckpointer(
      'run-1',
      new SlowWriter(),
      toRunState({ nodes: { start: { output: { a: 1 } }, 'llm-1': { step: { round: 1 } } } }),
      true,
    );

    expect(sut.finishedOutput('start')).toEqual({ a: 1 });
    expect(sut.finishedOutput('llm-1')).toBeUndefined();
    expect(sut.stepOf('llm-1').state).toEqual({ round: 1 });
    expect(sut.stepOf('end').state).toBeUndefined();
  });

  it("should store the run's totals with every state and read them back", async () => {
    const writer = new SlowWriter();
    const totals = {
      usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10, model_calls: 1 },
      tool_calls: 3,
    };
    const sut = new RunCheckpointer('run-1', writer, toRunState(null), false);
    sut.countWith(() => totals);

    const saved = sut.stepOf('llm-1').save({ round: 1 });
    await writerStarted(writer, 1);
    writer.endOne();
    await saved;

    const stored = JSON.parse(writer.saved[0]) as Record<string, unknown>;
    expect(stored.meter).toEqual(totals);
    expect(new RunCheckpointer('run-1', writer, toRunState(stored), true).totals).toEqual(totals);
  });

  it('should count the usage of finished nodes when a checkpoint has no totals', () => {
    const usage = { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5, model_calls: 1 };
    const state = toRunState({ nodes: { a: { output: { usage } }, b: { output: { usage } }, c: { step: {} } } });

    expect(new RunCheckpointer('run-1', new SlowWriter(), state, true).totals).toEqual({
      usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10, model_calls: 2 },
      tool_calls: 0,
    });
  });

  it('should read an unreadable checkpoint as none', () => {
    expect(toRunState({ nodes: 'broken' })).toEqual({ nodes: {} });
    expect(toRunState(null)).toEqual({ nodes: {} });
  });
});
