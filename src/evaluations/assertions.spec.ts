import { evaluateAssertion, isSubset, type Judge } from './assertions';
import type { ObservedRun } from './observed-run';
import type { Assertion } from './test-case.schema';

const observed = (overrides: Partial<ObservedRun> = {}): ObservedRun => ({
  runId: 'run-1',
  status: 'succeeded',
  text: 'It is 21 °C in Berlin.',
  data: { city: 'Berlin', temperature: 21, tags: ['warm'] },
  toolCalls: [
    { name: 'weather', arguments: { city: 'Berlin', unit: 'c' } },
    { name: 'ping', arguments: { id: 1 } },
  ],
  stopReason: 'answered',
  totalTokens: 150,
  durationMs: 1200,
  error: null,
  ...overrides,
});

describe(evaluateAssertion.name, () => {
  const cases: Array<[string, Assertion, Assertion, unknown]> = [
    [
      'text_equals',
      { type: 'text_equals', value: 'It is 21 °C in Berlin.' },
      { type: 'text_equals', value: 'It is cold.' },
      'It is 21 °C in Berlin.',
    ],
    [
      'text_contains',
      { type: 'text_contains', value: '21 °C' },
      { type: 'text_contains', value: 'Paris' },
      'It is 21 °C in Berlin.',
    ],
    [
      'text_matches',
      { type: 'text_matches', pattern: '\\d+ °C' },
      { type: 'text_matches', pattern: '^Paris' },
      'It is 21 °C in Berlin.',
    ],
    [
      'data_schema',
      {
        type: 'data_schema',
        schema: { type: 'object', required: ['city'], properties: { temperature: { type: 'number' } } },
      },
      { type: 'data_schema', schema: { type: 'object', properties: { temperature: { type: 'string' } } } },
      { city: 'Berlin', temperature: 21, tags: ['warm'] },
    ],
    [
      'data_subset',
      { type: 'data_subset', value: { city: 'Berlin', tags: ['warm'] } },
      { type: 'data_subset', value: { city: 'Paris' } },
      { city: 'Berlin', temperature: 21, tags: ['warm'] },
    ],
    ['tool_called', { type: 'tool_called', name: 'weather' }, { type: 'tool_called', name: 'search' }, [] as unknown],
    [
      'tool_called with arguments_subset',
      { type: 'tool_called', name: 'weather', arguments_subset: { city: 'Berlin' } },
      { type: 'tool_called', name: 'weather', arguments_subset: { city: 'Paris' } },
      [{ city: 'Berlin', unit: 'c' }],
    ],
    [
      'tool_called with arguments_schema',
      {
        type: 'tool_called',
        name: 'weather',
        arguments_schema: { type: 'object', properties: { unit: { enum: ['c', 'f'] } } },
      },
      { type: 'tool_called', name: 'weather', arguments_schema: { type: 'object', required: ['days'] } },
      [{ city: 'Berlin', unit: 'c' }],
    ],
    [
      'tool_not_called',
      { type: 'tool_not_called', name: 'search' },
      { type: 'tool_not_called', name: 'ping' },
      [{ id: 1 }],
    ],
    ['max_tool_calls', { type: 'max_tool_calls', max: 2 }, { type: 'max_tool_calls', max: 1 }, 2],
    [
      'stop_reason',
      { type: 'stop_reason', equals: 'answered' },
      { type: 'stop_reason', equals: 'max_iterations' },
      'answered',
    ],
    ['max_tokens', { type: 'max_tokens', max: 150 }, { type: 'max_tokens', max: 149 }, 150],
    ['max_duration_ms', { type: 'max_duration_ms', max: 5000 }, { type: 'max_duration_ms', max: 1000 }, 1200],
  ];

  it.each(cases)('should pass and fail %s, giving the actual value', async (_kind, passing, failing, actual) => {
    const passed = await evaluateAssertion(passing, observed());
    const failed = await evaluateAssertion(failing, observed());

    expect(passed).toMatchObject({ type: passing.type, passed: true, deterministic: true });
    expect(failed).toMatchObject({ type: failing.type, passed: false, deterministic: true });
    // The actual value of a tool assertion is the arguments of the calls of that tool; of the others, the value itself.
    if (failing.type === 'tool_called' && failing.name === 'search') expect(failed.actual).toEqual([]);
    else expect(failed.actual).toEqual(actual);
  });

  it('should say which call did not fit and why, for an arguments schema', async () => {
    const result = await evaluateAssertion(
      { type: 'tool_called', name: 'weather', arguments_schema: { type: 'object', required: ['days'] } },
      observed(),
    );
    expect(result.message).toContain('days');
  });

  it('should fail text assertions of a run without final text, with null as the actual value', async () => {
    const result = await evaluateAssertion({ type: 'text_contains', value: 'x' }, observed({ text: null }));
    expect(result).toMatchObject({ passed: false, actual: null });
  });

  it('should grade a judge assertion with the judge, marked non-deterministic, against its threshold', async () => {
    const judge: Judge = (assertion, text) =>
      Promise.resolve({ score: text.includes('Berlin') ? 0.9 : 0.2, reason: `graded on ${assertion.prompt}` });
    const assertion: Assertion = { type: 'judge', prompt: 'names the city', provider: 'openai', threshold: 0.5 };

    const passed = await evaluateAssertion(assertion, observed(), judge);
    const failed = await evaluateAssertion(assertion, observed({ text: 'It is warm.' }), judge);

    expect(passed).toMatchObject({ passed: true, actual: 0.9, deterministic: false });
    expect(failed).toMatchObject({ passed: false, actual: 0.2, deterministic: false });
  });

  it('should fail a judge assertion whose judge throws, with the reason', async () => {
    const judge: Judge = () => Promise.reject(new Error('provider down'));
    const result = await evaluateAssertion(
      { type: 'judge', prompt: 'p', provider: 'openai', threshold: 0.5 },
      observed(),
      judge,
    );
    expect(result).toMatchObject({ passed: false, deterministic: false });
    expect(result.message).toContain('provider down');
  });
});

describe(isSubset.name, () => {
  it('should compare objects by the expected keys, arrays item by item, and the rest by value', () => {
    expect(isSubset({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 })).toBe(true);
    expect(isSubset({ a: [1, { b: 2 }] }, { a: [1, { b: 2, c: 3 }] })).toBe(true);
    expect(isSubset({ a: [1] }, { a: [1, 2] })).toBe(false);
    expect(isSubset({ a: undefined }, {})).toBe(false);
    expect(isSubset('1', 1)).toBe(false);
  });
});
