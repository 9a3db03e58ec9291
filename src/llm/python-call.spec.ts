import { parsePythonCalls } from './python-call';

describe(parsePythonCalls.name, () => {
  it('should parse keyword arguments of every literal kind', () => {
    expect(parsePythonCalls(`f(a="x \\"y\\"", b='z', c=-1.5, d=True, e=None, g=false)`)).toEqual([
      { name: 'f', arguments: { a: 'x "y"', b: 'z', c: -1.5, d: true, e: null, g: false } },
    ]);
  });

  it('should parse several calls, bracketed or not', () => {
    expect(parsePythonCalls('[f(), g(x=1)]')).toEqual([
      { name: 'f', arguments: {} },
      { name: 'g', arguments: { x: 1 } },
    ]);
  });

  it.each(['f("positional")', 'f(a=1) and more', 'f(a=[1, 2])', 'f(a="unclosed)', 'just words', ''])(
    'should refuse %p',
    (text) => {
      expect(parsePythonCalls(text)).toBeNull();
    },
  );
});
