import { ToolExecutionError } from '../../shared/tool-errors';
import { defineBuiltin } from './builtin-tool';

export interface CalculatorParams {
  expression: string;
}

const MAX_EXPRESSION_LENGTH = 1000;
const MAX_NESTING = 100;

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E };

const FUNCTIONS: Readonly<Record<string, { arity: number | 'variadic'; apply: (...args: number[]) => number }>> = {
  sqrt: { arity: 1, apply: Math.sqrt },
  abs: { arity: 1, apply: Math.abs },
  sin: { arity: 1, apply: Math.sin },
  cos: { arity: 1, apply: Math.cos },
  tan: { arity: 1, apply: Math.tan },
  log: { arity: 1, apply: Math.log },
  ln: { arity: 1, apply: Math.log },
  log10: { arity: 1, apply: Math.log10 },
  exp: { arity: 1, apply: Math.exp },
  floor: { arity: 1, apply: Math.floor },
  ceil: { arity: 1, apply: Math.ceil },
  round: { arity: 1, apply: Math.round },
  min: { arity: 'variadic', apply: Math.min },
  max: { arity: 'variadic', apply: Math.max },
  pow: { arity: 2, apply: Math.pow },
};

type Token =
  | { kind: 'number'; value: number; position: number }
  | { kind: 'name'; value: string; position: number }
  | { kind: 'symbol'; value: string; position: number }
  | { kind: 'end'; position: number };

const describeToken = (token: Token): string => (token.kind === 'end' ? 'end of expression' : `'${token.value}'`);

const fail = (message: string): never => {
  throw new ToolExecutionError(message);
};

/** Positions in messages are 1-based character columns. */
function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const numberPattern = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
  let index = 0;
  while (index < expression.length) {
    const char = expression[index];
    const position = index + 1;
    if (/\s/.test(char)) {
      index++;
    } else if (/[\d.]/.test(char)) {
      const match = numberPattern.exec(expression.slice(index));
      if (!match) fail(`unexpected character '${char}' at position ${position}`);
      tokens.push({ kind: 'number', value: Number(match?.[0]), position });
      index += match?.[0].length ?? 1;
    } else if (/[a-z_]/i.test(char)) {
      const name = /^[a-z_][a-z0-9_]*/i.exec(expression.slice(index))?.[0] ?? char;
      tokens.push({ kind: 'name', value: name.toLowerCase(), position });
      index += name.length;
    } else if (expression.startsWith('**', index)) {
      tokens.push({ kind: 'symbol', value: '^', position });
      index += 2;
    } else if ('+-*/%^(),'.includes(char)) {
      tokens.push({ kind: 'symbol', value: char, position });
      index++;
    } else {
      fail(`unexpected character '${char}' at position ${position}`);
    }
  }
  tokens.push({ kind: 'end', position: expression.length + 1 });
  return tokens;
}

/** Recursive descent: `^` binds tighter than unary minus (-2^2 = -4) and is right-associative. */
class ExpressionParser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): number {
    const value = this.additive();
    const next = this.peek();
    if (next.kind !== 'end') fail(`unexpected ${describeToken(next)} at position ${next.position}`);
    return value;
  }

  private additive(): number {
    let value = this.multiplicative();
    for (let token = this.peek(); this.isSymbol(token, '+', '-'); token = this.peek()) {
      this.index++;
      const right = this.multiplicative();
      value = token.value === '+' ? value + right : value - right;
    }
    return value;
  }

  private multiplicative(): number {
    let value = this.unary();
    for (let token = this.peek(); this.isSymbol(token, '*', '/', '%'); token = this.peek()) {
      this.index++;
      const right = this.unary();
      if (token.value !== '*' && right === 0) {
        fail(`${token.value === '/' ? 'division' : 'modulo'} by zero at position ${token.position}`);
      }
      value = token.value === '*' ? value * right : token.value === '/' ? value / right : value % right;
    }
    return value;
  }

  private unary(): number {
    const token = this.peek();
    if (this.isSymbol(token, '+', '-')) {
      this.index++;
      const value = this.nested(() => this.unary());
      return token.value === '-' ? -value : value;
    }
    return this.power();
  }

  private power(): number {
    const base = this.primary();
    if (!this.isSymbol(this.peek(), '^')) return base;
    this.index++;
    return Math.pow(
      base,
      this.nested(() => this.unary()),
    );
  }

  private primary(): number {
    const token = this.next();
    if (token.kind === 'number') return token.value;
    if (token.kind === 'name') return this.name(token.value, token.position);
    if (this.isSymbol(token, '(')) {
      const value = this.nested(() => this.additive());
      this.expect(')');
      return value;
    }
    return fail(`unexpected ${describeToken(token)} at position ${token.position}`);
  }

  private name(name: string, position: number): number {
    const fn = FUNCTIONS[name];
    if (!fn) {
      if (name in CONSTANTS) return CONSTANTS[name];
      return fail(
        `unknown name '${name}' at position ${position}; known: ${[...Object.keys(CONSTANTS), ...Object.keys(FUNCTIONS)].join(', ')}`,
      );
    }
    this.expect('(');
    const args = [this.nested(() => this.additive())];
    while (this.isSymbol(this.peek(), ',')) {
      this.index++;
      args.push(this.nested(() => this.additive()));
    }
    this.expect(')');
    if (fn.arity !== 'variadic' && args.length !== fn.arity) {
      fail(
        `${name}() takes ${fn.arity} argument${fn.arity === 1 ? '' : 's'}, got ${args.length} at position ${position}`,
      );
    }
    return fn.apply(...args);
  }

  private nested(parse: () => number): number {
    if (++this.depth > MAX_NESTING) fail(`expression is nested more than ${MAX_NESTING} levels deep`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private expect(symbol: string): void {
    const token = this.next();
    if (!this.isSymbol(token, symbol)) {
      fail(`expected '${symbol}' but found ${describeToken(token)} at position ${token.position}`);
    }
  }

  private isSymbol(token: Token, ...symbols: string[]): token is Extract<Token, { kind: 'symbol' }> {
    return token.kind === 'symbol' && symbols.includes(token.value);
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'end') this.index++;
    return token;
  }
}

/** Evaluates an arithmetic expression without eval; throws ToolExecutionError with a position on bad input. */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    fail(`expression is too long (${expression.length} characters, limit ${MAX_EXPRESSION_LENGTH})`);
  }
  if (expression.trim() === '') fail('expression is empty');
  const result = new ExpressionParser(tokenize(expression)).parse();
  if (!Number.isFinite(result)) fail(`result is not a finite number (${String(result)})`);
  // Drops binary floating-point noise such as 0.1 + 0.2 = 0.30000000000000004.
  return Number(result.toPrecision(15));
}

export const calculator = defineBuiltin<CalculatorParams>({
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression exactly and returns the number. Use it for any calculation instead of ' +
    'computing in your head. Supports + - * / % ^ (power), parentheses, decimals, scientific notation (1.5e3), ' +
    'constants pi and e, and functions sqrt, abs, sin, cos, tan (radians), log and ln (natural), log10, exp, ' +
    'floor, ceil, round, min, max, pow.',
  category: 'math',
  effect: 'read_only',
  parameters: {
    type: 'object',
    properties: {
      expression: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_EXPRESSION_LENGTH,
        description: 'The expression to evaluate, e.g. "(17.5 * 3) / 4 + sqrt(16)" or "2^10 - max(3, 7)".',
      },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  execute: ({ expression }) =>
    new Promise((resolve) => {
      const result = evaluateExpression(expression);
      resolve({ response: `${expression.trim()} = ${result}`, data: { expression, result } });
    }),
});
