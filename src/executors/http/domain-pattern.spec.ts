import { domainRefusal, matchesDomain } from './domain-pattern';

describe(matchesDomain.name, () => {
  it.each([
    ['api.example.com', '*.example.com', true],
    ['a.b.example.com', '*.example.com', true],
    ['example.com', '*.example.com', false],
    ['badexample.com', '*.example.com', false],
    ['Example.COM.', 'example.com', true],
    ['api.example.com', 'example.com', false],
  ])('should match %s against %s: %s', (host, pattern, expected) => {
    expect(matchesDomain(host, pattern)).toBe(expected);
  });
});

describe(domainRefusal.name, () => {
  it('should let the block list win over the allow list', () => {
    expect(domainRefusal('x.example.com', ['*.example.com'], ['x.example.com'])).toContain('blocked domain');
  });

  it('should allow everything not blocked when there is no allow list', () => {
    expect(domainRefusal('anything.test', [], ['*.example.com'])).toBeNull();
  });
});
