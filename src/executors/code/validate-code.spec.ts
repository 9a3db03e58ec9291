import { validateCode } from './validate-code';

// Jest's resolver cannot load the native addon (jest.config.js lacks 'node' in moduleFileExtensions).

describe(validateCode.name, () => {
  it.each([
    'return { sum: args.a + args.b };',
    'const value = await Promise.resolve(args.x);\nreturn value;',
    '// only a comment',
  ])('should accept a valid body: %s', (code) => {
    expect(validateCode(code)).toEqual([]);
  });

  it('should report a syntax error with line and column', () => {
    expect(validateCode('const a = 1;\nreturn a +* 2;')).toEqual([
      { path: '/code', message: "SyntaxError: Unexpected token '*' (line 2, column 11)" },
    ]);
  });

  it('should report an unclosed construct at the end of the code', () => {
    expect(validateCode('return `unclosed')).toEqual([
      { path: '/code', message: 'SyntaxError: Unexpected end of input (at the end of the code)' },
    ]);
  });

  it('should refuse a body that closes the function early', () => {
    expect(validateCode('}); (function () {')).toEqual([
      {
        path: '/code',
        message: 'code must be a single function body (Single function literal required); check for unbalanced braces',
      },
    ]);
  });

  it('should compile without running the code', () => {
    expect(validateCode('for (;;) {}')).toEqual([]);
  });
});
