import {
  firstStop,
  type LoopProgress,
  repetitionStops,
  stepCountIs,
  toolCallCountIs,
  totalTokensReach,
} from './stop-condition';

const progress = (overrides: Partial<LoopProgress> = {}): LoopProgress => ({
  iterations: 0,
  startedToolCalls: 0,
  totalTokens: 0,
  stoppedRepetition: false,
  ...overrides,
});

describe('stop conditions', () => {
  it('should stop at the step count, not before', () => {
    expect(stepCountIs(3)(progress({ iterations: 2 }))).toBeNull();
    expect(stepCountIs(3)(progress({ iterations: 3 }))).toBe('max_iterations');
  });

  it('should stop once the tool call budget is started', () => {
    expect(toolCallCountIs(2)(progress({ startedToolCalls: 1 }))).toBeNull();
    expect(toolCallCountIs(2)(progress({ startedToolCalls: 2 }))).toBe('budget_tool_calls');
  });

  it('should stop once the token budget is used', () => {
    expect(totalTokensReach(100)(progress({ totalTokens: 99 }))).toBeNull();
    expect(totalTokensReach(100)(progress({ totalTokens: 100 }))).toBe('budget_tokens');
  });

  it('should stop once a round refused a repeated call', () => {
    expect(repetitionStops(progress())).toBeNull();
    expect(repetitionStops(progress({ stoppedRepetition: true }))).toBe('repetition');
  });

  it('should give the reason of the first condition that holds, in order', () => {
    const conditions = [toolCallCountIs(2), totalTokensReach(100), stepCountIs(1)];

    expect(firstStop(conditions, progress({ iterations: 1 }))).toBe('max_iterations');
    expect(firstStop(conditions, progress({ iterations: 1, totalTokens: 100, startedToolCalls: 2 }))).toBe(
      'budget_tool_calls',
    );
    expect(firstStop(conditions, progress())).toBeNull();
    expect(firstStop([], progress({ iterations: 50 }))).toBeNull();
  });
});
