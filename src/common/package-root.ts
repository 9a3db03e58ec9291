import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The directory holding package.json, found upwards from `from`, whether the code runs from src/ or dist/. */
export function packageRoot(from = __dirname): string {
  let directory = from;
  while (!existsSync(join(directory, 'package.json')) && dirname(directory) !== directory)
    directory = dirname(directory);
  return directory;
}
