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

  it('should read an unreadable checkpoint as none', () => {
    expect(toRunState({ nodes: 'broken' })).toEqual({ nodes: {} });
    expect(toRunState(null)).toEqual({ nodes: {} });
  });
});
