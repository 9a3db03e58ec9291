export interface PythonCall {
  name: string;
  arguments: Record<string, unknown>;
}

const IDENTIFIER = /[A-Za-z_][\w.-]*/y;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
const LITERALS: Record<string, unknown> = {
  True: true,
  False: false,
  None: null,
  true: true,
  false: false,
  null: null,
};

/**
 * Parses a line such as `get_weather(city="Paris", days=3), get_time(tz='UTC')`, optionally wrapped in
 * `[...]` (Llama style). Keyword arguments only: a positional argument cannot be mapped without guessing.
 * Returns null unless the whole text is calls.
 */
export function parsePythonCalls(text: string): PythonCall[] | null {
  const parser = new Parser(text.trim().replace(/^\[([\s\S]*)\]$/, '$1'));
  const calls: PythonCall[] = [];
  do {
    const call = parser.call();
    if (call === null) return null;
    calls.push(call);
  } while (parser.eat(','));
  return parser.atEnd() ? calls : null;
}

class Parser {
  private position = 0;

  constructor(private readonly text: string) {}

  call(): PythonCall | null {
    const name = this.match(IDENTIFIER);
    if (name === null || !this.eat('(')) return null;
    const args: Record<string, unknown> = {};
    if (this.eat(')')) return { name, arguments: args };
    do {
      const key = this.match(IDENTIFIER);
      if (key === null || !this.eat('=')) return null;
      const value = this.value();
      if (value === undefined) return null;
      args[key] = value;
    } while (this.eat(','));
    return this.eat(')') ? { name, arguments: args } : null;
  }

  eat(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.position)) return false;
    this.position += token.length;
    return true;
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.position === this.text.length;
  }

  private value(): unknown {
    this.skipSpace();
    const quote = this.text[this.position];
    if (quote === '"' || quote === "'") return this.string(quote);
    const number = this.match(NUMBER);
    if (number !== null) return Number(number);
    const word = this.match(IDENTIFIER);
    return word !== null && word in LITERALS ? LITERALS[word] : undefined;
  }

  private string(quote: string): string | undefined {
    let result = '';
    for (let index = this.position + 1; index < this.text.length; index++) {
      const char = this.text[index];
      if (char === quote) {
        this.position = index + 1;
        return result;
      }
      if (char === '\\' && index + 1 < this.text.length) {
        index++;
        const escaped = this.text[index];
        result += escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped;
      } else {
        result += char;
      }
    }
    return undefined;
  }

  private match(pattern: RegExp): string | null {
    this.skipSpace();
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text);
    if (found === null) return null;
    this.position += found[0].length;
    return found[0];
  }

  private skipSpace(): void {
    while (this.position < this.text.length && /\s/.test(this.text[this.position])) this.position++;
  }
}
