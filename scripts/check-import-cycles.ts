import { join } from 'node:path';
import { importCycles, importGraph } from '../test/support/import-graph';

/**
 * The directories whose files may not import each other in a circle (relative imports, types included). They form
 * one graph, so a circle through a spec in `src/` and a helper in `test/support/` counts too.
 */
const CHECKED = ['src', 'console/src', 'test', 'bench', 'scripts'];
/** Code written by a generator (the API client), which is not ours to shape. */
const GENERATED = /\/generated(-client)?\//;

/** The lint stage's import-cycle check (`npm run lint:cycles`): prints each cycle and fails when there is one. */
function main(): void {
  const root = join(__dirname, '..');
  const graph = CHECKED.flatMap((dir) => [...importGraph(root, dir)]).filter(([file]) => !GENERATED.test(file));
  const cycles = importCycles(new Map(graph));
  for (const cycle of cycles) process.stderr.write(`import cycle: ${cycle.join(' <-> ')}\n`);
  if (cycles.length > 0) process.exit(1);
  process.stdout.write(`no import cycle in ${CHECKED.join(', ')}\n`);
}

main();
