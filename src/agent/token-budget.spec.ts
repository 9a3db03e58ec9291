import { decideTokenBudget, MIN_ANSWER_TOKENS, type TokenBudgetInput } from './token-budget';

describe(decideTokenBudget.name, () => {
  const input = (overrides: Partial<TokenBudgetInput>): TokenBudgetInput => ({
    left: 10_000,
    promptBound: 4000,
    countPrompt: () => 1000,
    answerTokens: 4096,
    addedOutputTokens: 0,
    ...overrides,
  });

  it('should refuse a call whose prompt plus the smallest answer does not fit what is left', () => {
    const sut = decideTokenBudget(input({ left: 1000 + MIN_ANSWER_TOKENS - 1 }));

    expect(sut).toEqual({ action: 'refuse', promptTokens: 1000, left: 1031, neededTokens: 1032 });
  });

  it('should cap the answer to what is left after the counted prompt', () => {
    const sut = decideTokenBudget(input({ left: 3000 }));

    expect(sut).toEqual({ action: 'send', maxTokens: 2000 });
  });

  it("should keep the node's max_tokens when it is smaller than what is left after the prompt", () => {
    const sut = decideTokenBudget(input({ left: 3000, answerTokens: 500 }));

    expect(sut).toEqual({ action: 'send', maxTokens: 500 });
  });

  it('should not count the prompt when its bound already leaves room for the whole answer', () => {
    const countPrompt = jest.fn(() => 1000);

    const sut = decideTokenBudget(input({ left: 8096, countPrompt }));

    expect(sut).toEqual({ action: 'send', maxTokens: 4096 });
    expect(countPrompt).not.toHaveBeenCalled();
  });

  it('should keep room for output the protocol adds (a thinking budget), refusing when only that fits', () => {
    expect(decideTokenBudget(input({ left: 3000, addedOutputTokens: 1024 }))).toEqual({
      action: 'send',
      maxTokens: 976,
    });
    expect(decideTokenBudget(input({ left: 2050, addedOutputTokens: 1024 }))).toEqual({
      action: 'refuse',
      promptTokens: 1000,
      left: 2050,
      neededTokens: 1000 + 1024 + MIN_ANSWER_TOKENS,
    });
  });

  it('should refuse when the budget is already overdrawn', () => {
    expect(decideTokenBudget(input({ left: -5 }))).toMatchObject({ action: 'refuse', left: -5 });
  });
});
