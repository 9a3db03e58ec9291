import type { ToolExecuteContext } from '../../shared/tool-definition';
import { ToolExecutionError } from '../../shared/tool-errors';
import type { BuiltinEnvironment } from './builtin-tool';
import { calculator, evaluateExpression } from './calculator';

describe(evaluateExpression.name, () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['-(2 + 3)', -5],
    ['.5 + 1.25', 1.75],
    ['1.5e3 + 2E-1', 1500.2],
    ['0.1 + 0.2', 0.3],
    ['pi', Math.PI],
    ['E', Math.E],
    ['sqrt(16) + abs(-3)', 7],
    ['log(e) + ln(1) + log10(1000)', 4],
    ['exp(0) + floor(2.7) + ceil(2.1) + round(2.5)', 9],
    ['min(3, 1, 2) + max(3, 1, 2)', 4],
    ['pow(2, 8)', 256],
    ['sin(0) + cos(0) + tan(0)', 1],
    ['2 * (3 + (4 - 1)) / 3', 4],
  ])('should evaluate %s', (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 12);
  });

  it.each([
    ['(1 + 2))', "unexpected ')' at position 8"],
    ['1 +', 'unexpected end of expression at position 4'],
    ['2 * (3', "expected ')' but found end of expression at position 7"],
    ['1 / 0', 'division by zero at position 3'],
    ['5 % (2 - 2)', 'modulo by zero at position 3'],
    ['sqrt(-1)', 'result is not a finite number (NaN)'],
    ['10 ^ 400', 'result is not a finite number (Infinity)'],
    ['log(0)', 'result is not a finite number (-Infinity)'],
    ['2 $ 3', "unexpected character '$' at position 3"],
    ['foo(1)', "unknown name 'foo' at position 1"],
    ['pow(2)', 'pow() takes 2 arguments, got 1 at position 1'],
    ['sqrt 4', "expected '(' but found '4' at position 6"],
    ['1..2', 'unexpected'],
    ['   ', 'expression is empty'],
    ['process.exit()', "unexpected character '.' at position 8"],
    ['process', "unknown name 'process' at position 1"],
  ])('should refuse %j with %j', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(ToolExecutionError);
    expect(() => evaluateExpression(expression)).toThrow(message);
  });

  it('should refuse expressions over the length cap', () => {
    expect(() => evaluateExpression('1+'.repeat(600) + '1')).toThrow('expression is too long');
  });

  it('should refuse nesting deep enough to exhaust the stack', () => {
    expect(() => evaluateExpression('('.repeat(300) + '1' + ')'.repeat(300))).toThrow('nested more than 100 levels');
  });
});

describe('calculator tool', () => {
  it('should answer with the expression and its result', async () => {
    const result = await calculator.execute(
      { expression: ' 6 * 7 ' },
      {} as ToolExecuteContext<{ expression: string }>,
      {} as BuiltinEnvironment,
    );

    expect(result).toEqual({ response: '6 * 7 = 42', data: { expression: ' 6 * 7 ', result: 42 } });
  });
});
