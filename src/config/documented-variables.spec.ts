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

describe('configuration documentation', () => {
  const variables = variablesRead();

  it('should read some variables', () => {
    expect(variables).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'LLM_PROVIDERS']));
  });

  it('should list every variable the service reads in .env.example', () => {
    const listed = new Set(
      readFileSync(join(root, '.env.example'), 'utf8')
        .split('\n')
        .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
        .filter((name) => name !== undefined),
    );
    expect(variables.filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !variables.includes(name))).toEqual([]);
  });

  it('should give in .env.example the defaults the service uses when a variable is unset', () => {
    const example = Object.fromEntries(
      readFileSync(join(root, '.env.example'), 'utf8')
        .split('\n')
        .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
        .filter((match) => match !== null)
        .map((match) => [match[1], match[2]]),
    );
    // Settings read only beside a set variable (the database_query limits) count too.
    const target = { QUERY_DATABASE_URL: 'sqlite:query.db' };
    expect(loadConfig({ ...example, ...target })).toEqual(loadConfig(target));
  });

  it('should describe every variable the service reads in the README configuration tables', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const configuration = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n### Admin key'));
    const tabled = new Set(
      configuration
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1])),
    );
    expect(variables.filter((name) => !tabled.has(name))).toEqual([]);
    expect([...tabled].filter((name) => !variables.includes(name))).toEqual([]);
  });
});
