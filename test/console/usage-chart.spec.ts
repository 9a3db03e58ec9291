import type { UsageItemDto } from '../../console/src/api/types';
import { usageBars } from '../../console/src/lib/usage-chart';

const item = (key: string, figures: Partial<UsageItemDto> = {}): UsageItemDto => ({
  key,
  name: null,
  runs: 0,
  model_calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cost: null,
  code_cpu_seconds: null,
  ...figures,
});

describe(usageBars.name, () => {
  it('should scale each bar to the largest value', () => {
    const bars = usageBars(
      [item('2026-12-04', { total_tokens: 150 }), item('2026-12-05', { total_tokens: 600 })],
      'total_tokens',
    );
    expect(bars).toEqual([
      { key: '2026-12-04', label: '2026-12-04', value: 150, text: '150', percent: 25 },
      { key: '2026-12-05', label: '2026-12-05', value: 600, text: '600', percent: 100 },
    ]);
  });

  it('should show an unknown cost as unknown with no bar, never as 0', () => {
    const bars = usageBars(
      [item('a', { cost: { amount: 0.002, currency: 'USD' } }), item('b', { cost: null })],
      'cost',
    );
    expect(bars).toEqual([
      { key: 'a', label: 'a', value: 0.002, text: '0.002 USD', percent: 100 },
      { key: 'b', label: 'b', value: null, text: 'cost unknown', percent: 0 },
    ]);
  });

  it('should draw no bars when every value is 0', () => {
    expect(usageBars([item('a'), item('b')], 'runs').map((bar) => bar.percent)).toEqual([0, 0]);
  });

  it('should group the digits of large counts', () => {
    expect(usageBars([item('a', { runs: 12345 })], 'runs')[0].text).toBe('12,345');
  });

  it('should name a workflow by its name, keeping its id as the key, and one without a name by its key', () => {
    const bars = usageBars([item('3f2a…', { name: 'support-triage', runs: 2 }), item('inline', { runs: 1 })], 'runs');

    expect(bars.map(({ key, label }) => ({ key, label }))).toEqual([
      { key: '3f2a…', label: 'support-triage' },
      { key: 'inline', label: 'inline' },
    ]);
  });
});
