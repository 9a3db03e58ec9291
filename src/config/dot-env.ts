import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * Reads `.env` (from the working directory) into `env`, as `.env.example` promises. Variables that
 * are already set win over the file; a missing file is fine.
 */
export function loadDotEnv(path = '.env', env: NodeJS.ProcessEnv = process.env): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] === undefined) env[name] = value;
  }
}
