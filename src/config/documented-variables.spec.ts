import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './app-config';

/** Every variable loadConfig looks up, found by handing it an environment that records each name asked for. */
function variablesRead(): string[] {
  const names = new Set<string>();
  const recording = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get: (_target, name) => {
        if (typeof name === 'string') names.add(name);
        return undefined;
      },
    },
  );
  loadConfig(recording);
  return [...names].sort();
}

const root = join(__dirname, '..', '..');

/** `.env.example` as name → value. */
function envExample(): Record<string, string> {
  return Object.fromEntries(
    readFileSync(join(root, '.env.example'), 'utf8')
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1], match[2]]),
  );
}

/** The rows of docs/configuration.md's tables: the variables of a row and its default column, split at commas. */
function readmeRows(): Array<{ names: string[]; defaults: string[] }> {
  const readme = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
  const configuration = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n### Admin key'));
  return configuration
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, names, defaults] = line.split('|');
      return {
        names: [...names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]),
        defaults: defaults.split(',').map((value) => value.trim()),
      };
    });
}

describe('configuration documentation', () => {
  const variables = variablesRead();

  it('should read some variables', () => {
    expect(variables).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'LLM_PROVIDERS']));
  });

  it('should list every variable the service reads in .env.example', () => {
    const listed = Object.keys(envExample());
    expect(variables.filter((name) => !listed.includes(name))).toEqual([]);
    expect(listed.filter((name) => !variables.includes(name))).toEqual([]);
  });

  it('should give in .env.example the defaults the service uses when a variable is unset', () => {
    // Settings read only beside a set variable (the database_query limits) count too.
    const target = { QUERY_DATABASE_URL: 'sqlite:query.db' };
    expect(loadConfig({ ...envExample(), ...target })).toEqual(loadConfig(target));
  });

  it('should describe every variable the service reads in the docs/configuration.md tables', () => {
    const tabled = readmeRows().flatMap((row) => row.names);
    expect(variables.filter((name) => !tabled.includes(name))).toEqual([]);
    expect(tabled.filter((name) => !variables.includes(name))).toEqual([]);
  });

  it('should give in the docs/configuration.md tables the defaults .env.example gives', () => {
    const example = envExample();
    // A default in backticks is the value; words (none, disabled, generated once …) stand for an empty one.
    const mismatches = readmeRows()
      .filter((row) => row.names.length === row.defaults.length)
      .flatMap((row) => row.names.map((name, index) => ({ name, readme: row.defaults[index] })))
      .filter(({ name, readme }) => {
        const value = /^`(.*)`$/.exec(readme)?.[1] ?? '';
        return value !== example[name];
      });
    expect(mismatches).toEqual([]);
  });
});
