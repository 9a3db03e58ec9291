import { RunLimitReached, RunMeter, type RunMeterOptions } from './run-meter';

const call = (totalTokens: number) => ({ promptTokens: totalTokens - 1, completionTokens: 1, totalTokens });

describe(RunMeter.name, () => {
  const meters: RunMeter[] = [];
  const meter = (options: Partial<RunMeterOptions> = {}): RunMeter => {
    const sut = new RunMeter({
      runId: 'run-1',
      budgets: null,
      startedAt: Date.now(),
      signal: new AbortController().signal,
      ...options,
    });
    meters.push(sut);
    return sut;
  };

  afterEach(() => {
    meters.splice(0).forEach((sut) => sut.dispose());
    jest.useRealTimers();
  });

  it('should count usage and tool calls without ending a run that has no budgets', () => {
    const sut = meter();

    sut.addModelCall(call(10));
    sut.addModelCall(call(5));
    expect(sut.startToolCall()).toBe(true);

    expect(sut.snapshot()).toEqual({
      usage: { prompt_tokens: 13, completion_tokens: 2, total_tokens: 15, model_calls: 2 },
      tool_calls: 1,
      elapsed_ms: expect.any(Number) as number,
    });
    expect(sut.signal.aborted).toBe(false);
  });

  it('should end the run with run_token_budget once its tokens reach max_total_tokens', () => {
    const sut = meter({ budgets: { max_total_tokens: 20 } });

    sut.addModelCall(call(10));
    expect(sut.signal.aborted).toBe(false);
    sut.addModelCall(call(10));

    expect(sut.signal.aborted).toBe(true);
    expect(sut.stopped).toMatchObject({
      stopReason: 'run_token_budget',
      message: 'the run used 20 tokens, reaching its budget of 20 (max_total_tokens)',
    });
  });

  it('should add up costs, and end the run with run_cost_budget once they reach max_cost', () => {
    const sut = meter({ budgets: { max_cost: 0.01 } });
    const usd = (amount: number) => ({ amount, currency: 'USD' });

    sut.addModelCall(call(10), 1, usd(0.004));
    sut.addModelCall(call(10), 0, usd(0.004));
    expect(sut.signal.aborted).toBe(false);
    expect(sut.usage.cost).toEqual(usd(0.008));
    sut.addModelCall(call(10), 1, usd(0.002));

    expect(sut.stopped?.stopReason).toBe('run_cost_budget');
    expect(sut.stopped?.message).toBe('the run cost 0.01 USD, reaching its budget of 0.01 (max_cost)');
  });

  it('should end a run with max_cost at the first call whose cost is unknown, and keep the total unknown', () => {
    const sut = meter({ budgets: { max_cost: 5 } });

    sut.addModelCall(call(10), 1, { amount: 0.1, currency: 'USD' });
    sut.addModelCall(call(10), 1, null);

    expect(sut.usage.cost).toBeNull();
    expect(sut.stopped?.stopReason).toBe('run_cost_budget');
  });

  it("should add a child run's cost to its parent's", () => {
    const parent = meter();
    const child = meter({ runId: 'child', parent });

    child.addModelCall(call(10), 1, { amount: 0.5, currency: 'EUR' });
    parent.addModelCall(call(10), 1, { amount: 0.25, currency: 'EUR' });

    expect(parent.usage.cost).toEqual({ amount: 0.75, currency: 'EUR' });
  });

  it('should refuse the tool call after the last one max_tool_calls allows, and end the run', () => {
    const sut = meter({ budgets: { max_tool_calls: 2 } });

    expect([sut.startToolCall(), sut.startToolCall()]).toEqual([true, true]);
    expect(sut.signal.aborted).toBe(false);
    expect(sut.startToolCall()).toBe(false);

    expect(sut.stopped?.stopReason).toBe('run_tool_call_budget');
    expect(sut.snapshot().tool_calls).toBe(2);
  });

  it('should count on from stored totals: a resumed run over its budget stops at once', () => {
    const totals = {
      usage: { prompt_tokens: 90, completion_tokens: 10, total_tokens: 100, model_calls: 3 },
      tool_calls: 4,
    };

    expect(meter({ budgets: { max_tool_calls: 4 }, totals }).startToolCall()).toBe(false);
    expect(meter({ budgets: { max_total_tokens: 100 }, totals }).stopped?.stopReason).toBe('run_token_budget');
    expect(meter({ budgets: { max_total_tokens: 101 }, totals }).signal.aborted).toBe(false);
  });

  it("should count the time limit from the run's first start when the stored totals do not say how long it ran", () => {
    jest.useFakeTimers();
    const sut = meter({ budgets: { timeout_ms: 1000 }, startedAt: Date.now() - 900 });

    jest.advanceTimersByTime(99);
    expect(sut.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);

    expect(sut.stopped).toMatchObject({
      stopReason: 'run_timeout',
      message: 'the run reached its time limit of 1000 ms (timeout_ms)',
    });
  });

  it('should count only the time the run executed: a resumed meter goes on from the stored elapsed_ms', () => {
    jest.useFakeTimers();
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, model_calls: 0 };
    // First started an hour ago, but it executed 900 ms of that; the rest it waited for a person.
    const sut = meter({
      budgets: { timeout_ms: 1000 },
      startedAt: Date.now() - 3_600_000,
      totals: { usage, tool_calls: 0, elapsed_ms: 900 },
    });

    jest.advanceTimersByTime(60);
    expect(sut.snapshot().elapsed_ms).toBe(960);
    jest.advanceTimersByTime(39);
    expect(sut.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);

    expect(sut.stopped?.stopReason).toBe('run_timeout');
  });

  it('should store the time an execution ran, added to the earlier ones', () => {
    jest.useFakeTimers();
    const first = meter({ budgets: { timeout_ms: 1000 } });
    jest.advanceTimersByTime(300);
    const stored = first.snapshot();
    first.dispose();
    jest.advanceTimersByTime(60_000);

    const second = meter({ budgets: { timeout_ms: 1000 }, startedAt: Date.now() - 60_300, totals: stored });
    jest.advanceTimersByTime(200);

    expect(stored.elapsed_ms).toBe(300);
    expect(second.snapshot().elapsed_ms).toBe(500);
    expect(second.signal.aborted).toBe(false);
  });

  it("should add a child run's usage and calls to its parent, and stop the child when the parent's budget runs out", () => {
    const parentController = new AbortController();
    const parent = meter({ runId: 'parent', budgets: { max_total_tokens: 50, max_tool_calls: 1 } });
    parent.signal.addEventListener('abort', () => parentController.abort(parent.signal.reason));
    const child = meter({ runId: 'child', signal: parentController.signal, parent });

    expect(child.startToolCall()).toBe(true);
    expect(child.startToolCall()).toBe(false);
    expect(parent.snapshot().tool_calls).toBe(1);
    expect(parent.stopped?.stopReason).toBe('run_tool_call_budget');
    // The child stopped because of its parent's budget, not one of its own.
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBeInstanceOf(RunLimitReached);
    expect(child.stopped).toBeNull();
  });

  it("should add a child's tokens to its parent's usage", () => {
    const parent = meter({ runId: 'parent' });
    const child = meter({ runId: 'child', parent });

    child.addModelCall(call(30));
    parent.addModelCall(call(5));

    expect(child.usage.total_tokens).toBe(30);
    expect(parent.usage).toEqual({ prompt_tokens: 33, completion_tokens: 2, total_tokens: 35, model_calls: 2 });
  });

  it('should tell the tokens left: none without a budget, else the least its own and its parent runs leave', () => {
    const parent = meter({ runId: 'parent', budgets: { max_total_tokens: 100 } });
    const child = meter({ runId: 'child', budgets: { max_total_tokens: 500 }, parent });
    const free = meter();

    child.addModelCall(call(30));

    expect(free.tokensLeft()).toBeUndefined();
    expect(child.tokensLeft()).toBe(70);
    expect(meter({ runId: 'other', budgets: { max_total_tokens: 50 }, parent }).tokensLeft()).toBe(50);
  });

  it('should end the run with run_token_budget when a model call it cannot hold is refused', () => {
    const sut = meter({ budgets: { max_total_tokens: 100 } });
    sut.addModelCall(call(40));

    sut.refuseModelCall(90);

    expect(sut.stopped).toMatchObject({
      stopReason: 'run_token_budget',
      message:
        "the next model call does not fit the run's budget of 100 tokens (max_total_tokens): its prompt alone needs " +
        'about 90 tokens, plus at least 32 for an answer, and 60 are left',
    });
  });

  it("should end the parent run when its budget is the one a child's model call does not fit", () => {
    const parentController = new AbortController();
    const parent = meter({ runId: 'parent', budgets: { max_total_tokens: 100 } });
    parent.signal.addEventListener('abort', () => parentController.abort(parent.signal.reason));
    const child = meter({
      runId: 'child',
      budgets: { max_total_tokens: 1000 },
      signal: parentController.signal,
      parent,
    });

    child.refuseModelCall(200, 1024);

    expect(parent.stopped?.message).toContain(
      'plus 1024 for the thinking budget and at least 32 for an answer, and 100',
    );
    expect(child.signal.aborted).toBe(true);
    expect(child.stopped).toBeNull();
  });
});
