import { type CaseResult, compareResults, summarize } from './test-run-results';

const usd = (amount: number) => ({ amount, currency: 'USD' });
const result = (name: string, passed: boolean, cost: CaseResult['cost'], extra: Partial<CaseResult> = {}) =>
  ({
    name,
    passed,
    run_id: `run-${name}`,
    run_status: passed ? 'succeeded' : 'failed',
    replayed: false,
    divergence: null,
    error: null,
    assertions: [],
    total_tokens: 100,
    duration_ms: 50,
    cost,
    ...extra,
  }) satisfies CaseResult;

describe(summarize.name, () => {
  it('should add up the cases’ costs', () => {
    expect(summarize([result('a', true, usd(0.0012)), result('b', false, usd(0.0003))]).cost).toEqual(usd(0.0015));
  });

  it('should say null, never 0, when a case ran with a model of unknown price', () => {
    expect(summarize([result('a', true, usd(0.0012)), result('b', true, null)]).cost).toBeNull();
  });

  it('should leave out a case that could not start, which cost nothing', () => {
    const notStarted = result('c', false, null, { run_id: null, error: 'inputs refused' });

    expect(summarize([result('a', true, usd(0.002)), notStarted]).cost).toEqual(usd(0.002));
  });
});

describe(compareResults.name, () => {
  it('should give the cost delta per case and for the whole test run', () => {
    const before = { id: 'tr-1', results: [result('a', true, usd(0.001)), result('b', true, usd(0.002))] };
    const now = [result('a', true, usd(0.0015)), result('b', false, usd(0.001)), result('new', true, usd(0.004))];

    const comparison = compareResults(now, before);

    expect(comparison.cost_delta).toEqual(usd(0.0035));
    expect(comparison.newly_failing).toEqual(['b']);
    expect(comparison.cases.map((entry) => [entry.name, entry.cost_delta])).toEqual([
      ['a', usd(0.0005)],
      ['b', usd(-0.001)],
      ['new', null],
    ]);
  });

  it('should give no cost delta when either side is unknown, or stored before cases had a cost', () => {
    const stored = { ...result('a', true, null), cost: undefined } as unknown as CaseResult;

    const comparison = compareResults([result('a', true, usd(0.001))], { id: 'tr-0', results: [stored] });

    expect(comparison.cost_delta).toBeNull();
    expect(comparison.cases[0].cost_delta).toBeNull();
  });
});
