import { encode } from 'gpt-tokenizer';
import { countTokens, fitsInTokens, headByTokens, tailByTokens } from './token-count';

describe('token counting', () => {
  const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(50);

  it('should count short texts exactly', () => {
    expect(countTokens(prose)).toBe(encode(prose).length);
    expect(countTokens('')).toBe(0);
  });

  it('should estimate a long text within a few percent of the exact count', () => {
    const long = Array.from({ length: 20_000 }, (_, index) => `{"id":${index},"name":"item ${index}"}`).join(',');
    const exact = encode(long).length;

    expect(Math.abs(countTokens(long) - exact) / exact).toBeLessThan(0.05);
  });

  it('should tell whether a text fits a token limit, also for texts far too long to encode', () => {
    const tokens = encode(prose).length;

    expect(fitsInTokens(prose, tokens)).toBe(true);
    expect(fitsInTokens(prose, tokens - 1)).toBe(false);
    expect(fitsInTokens('x'.repeat(5_000_000), 1000)).toBe(false);
    expect(fitsInTokens('short', 1000)).toBe(true);
  });

  it('should cut a head and a tail of at most the given tokens', () => {
    const head = headByTokens(prose, 20);
    const tail = tailByTokens(prose, 20);

    expect(prose.startsWith(head)).toBe(true);
    expect(prose.endsWith(tail)).toBe(true);
    expect(encode(head).length).toBeLessThanOrEqual(20);
    expect(encode(tail).length).toBeLessThanOrEqual(21);
    expect(head.length).toBeGreaterThan(50);
    expect(headByTokens('tiny', 20)).toBe('tiny');
  });

  it('should not leave half a character where a cut falls inside one', () => {
    const chinese = '北京今天天气晴朗，气温二十一度。'.repeat(30);

    expect(headByTokens(chinese, 7)).not.toMatch(/\uFFFD/);
    expect(chinese.startsWith(headByTokens(chinese, 7))).toBe(true);
  });
});
