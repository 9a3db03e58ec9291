import { knownContextWindow } from './context-window';

describe(knownContextWindow.name, () => {
  it.each([
    ['gpt-4o-mini', 128_000],
    ['gpt-4.1-nano', 1_047_576],
    ['gpt-5-mini', 400_000],
    ['gpt-4', 8_192],
    ['o1-mini', 128_000],
    ['o3', 200_000],
    ['o4-mini', 200_000],
    ['claude-sonnet-4-5', 200_000],
    ['openai/gpt-4o', 128_000],
    ['llama3.1:8b', 131_072],
    ['llama3:8b', 8_192],
    ['qwen3:14b', 32_768],
    ['Qwen2.5-72B-Instruct', 32_768],
  ])('should know %s', (model, window) => {
    expect(knownContextWindow(model)).toBe(window);
  });

  it('should not guess an unknown model', () => {
    expect(knownContextWindow('test-model')).toBeNull();
    expect(knownContextWindow('')).toBeNull();
  });
});
