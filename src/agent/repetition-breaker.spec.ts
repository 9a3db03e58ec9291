import { RepetitionBreaker } from './repetition-breaker';

const call = (name: string, args: string) => ({ id: `${name}-${args}`, name, arguments: args });

describe(RepetitionBreaker.name, () => {
  it('should warn at the limit and stop one call later', () => {
    const sut = new RepetitionBreaker(3);
    const verdicts = [1, 2, 3, 4].map(() => sut.observe(call('search', '{"q":"x"}')));
    expect(verdicts).toEqual(['ok', 'ok', 'warn', 'stop']);
  });

  it('should treat arguments with another key order as the same call', () => {
    const sut = new RepetitionBreaker(2);
    sut.observe(call('search', '{"q":"x","n":1}'));
    expect(sut.observe(call('search', '{"n":1,"q":"x"}'))).toBe('warn');
  });

  it('should restart the count when the arguments change', () => {
    const sut = new RepetitionBreaker(2);
    sut.observe(call('search', '{"q":"x"}'));
    sut.observe(call('search', '{"q":"y"}'));
    expect(sut.observe(call('search', '{"q":"x"}'))).toBe('ok');
  });

  it('should restart the count when another tool is called in between', () => {
    const sut = new RepetitionBreaker(2);
    sut.observe(call('search', '{}'));
    sut.observe(call('fetch', '{}'));
    expect(sut.observe(call('search', '{}'))).toBe('ok');
  });

  it('should remember the last call without its arguments in clear, and go on counting from that state', () => {
    const first = new RepetitionBreaker(2);
    first.observe(call('login', '{"password":"hunter2-secret"}'));

    const sut = new RepetitionBreaker(2, first.state);

    expect(JSON.stringify(first.state)).not.toContain('hunter2-secret');
    expect(sut.observe(call('login', '{"password":"hunter2-secret"}'))).toBe('warn');
  });
});
