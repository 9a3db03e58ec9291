import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importCycles, importGraph } from '../test/support/import-graph';

const root = join(__dirname, '..');
const BASE_MODULES = ['shared', 'config', 'common'];

/** BASE and MODULE_ARROWS as eslint.config.mjs declares them (a plain object literal, evaluated alone). */
function moduleArrows(): Record<string, string[]> {
  const config = readFileSync(join(root, 'eslint.config.mjs'), 'utf8');
  const start = config.indexOf('const BASE = ');
  const end = config.indexOf('const MODULES = ');
  if (start < 0 || end < start) throw new Error('eslint.config.mjs: BASE and MODULE_ARROWS not found');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the repository's own config, not input
  const read = new Function(`${config.slice(start, end)}; return MODULE_ARROWS;`) as () => Record<string, string[]>;
  return read();
}

/** The module a file of src/ belongs to, as the boundaries lint sees it (nested modules first). */
function moduleOf(file: string, modules: readonly string[]): string | null {
  const inner = file.slice('src/'.length);
  if (!inner.includes('/')) return 'root';
  return [...modules].sort((a, b) => b.length - a.length).find((module) => inner.startsWith(`${module}/`)) ?? null;
}

/** Mermaid ids cannot hold `-` or `/`. */
const mermaidId = (module: string): string => module.replace(/\//g, '__').replace(/-/g, '_');

const edge = (from: string, to: string): string => `${from} --> ${to}`;

describe('module graph', () => {
  const arrows = moduleArrows();
  const modules = Object.keys(arrows).filter((module) => module !== 'root');
  const graph = importGraph(root);

  it('should have no import cycle between files', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('should use every arrow it allows (an unused arrow invites the import it was not meant for)', () => {
    const used = new Set<string>();
    for (const [file, targets] of graph) {
      if (file.endsWith('.spec.ts')) continue;
      const from = moduleOf(file, modules);
      for (const target of targets) {
        const to = target.startsWith('src/') ? moduleOf(target, modules) : target.split('/')[0];
        if (from && to && from !== to) used.add(edge(from, to));
      }
    }
    const allowedEdges = Object.entries(arrows)
      .filter(([from]) => from !== 'root')
      .flatMap(([from, allowed]) =>
        allowed.filter((to) => !BASE_MODULES.includes(to) || BASE_MODULES.includes(from)).map((to) => edge(from, to)),
      );
    expect(allowedEdges.filter((arrow) => !used.has(arrow))).toEqual([]);
  });

  it('should let every module above the base import the base (docs/architecture.md leaves those arrows out)', () => {
    const missing = modules
      .filter((module) => !BASE_MODULES.includes(module))
      .filter((module) => !BASE_MODULES.every((base) => arrows[module].includes(base)));
    expect(missing).toEqual([]);
  });

  it('should be drawn in docs/architecture.md exactly as eslint.config.mjs allows it', () => {
    const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const block = /```mermaid\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
    const drawn = [...block.matchAll(/^\s*(\w+)\s*-->\s*(\w+)\s*$/gm)].map(([, from, to]) => edge(from, to)).sort();
    const allowed = modules
      .flatMap((from) =>
        arrows[from]
          .filter((to) => !BASE_MODULES.includes(to) || BASE_MODULES.includes(from))
          .map((to) => edge(mermaidId(from), mermaidId(to))),
      )
      .sort();
    expect(drawn).toEqual(allowed);
  });
});
