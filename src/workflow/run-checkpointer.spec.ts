import { RunCheckpointer, toRunState, type CheckpointWriter } from './run-checkpointer';

/** A writer whose saves end when the test says, recording what each one got. */
class SlowWriter implements CheckpointWriter {
  readonly saved: string[] = [];
  private readonly pending: Array<() => void> = [];

  save(_runId: string, state: Record<string, unknown>): Promise<void> {
    return new Promise((resolve) => {
      this.pending.push(() => {
        this.saved.push(JSON.stringify(state));
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
    const second = sut.stepOf('llm-1').save({ round: 2 });
    await Promise.resolve();
    expect(writer.waiting).toBe(1);
    writer.endOne();
    await first;
    await Promise.resolve();
    writer.endOne();
    await second;

    expect(writer.saved).toEqual([
      JSON.stringify({ nodes: { 'llm-1': { step: { round: 2 } } } }),
      JSON.stringify({ nodes: { 'llm-1': { step: { round: 2 } } } }),
    ]);
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
    await Promise.resolve();
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
