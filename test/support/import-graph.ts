import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/** The TypeScript files below `dir` (paths relative to `root`, with forward slashes). */
function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(root, path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function resolveSpecifier(root: string, from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [`${base}.ts`, base, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split('\\').join('/');
  }
  return null;
}

/**
 * The files below `dir` and the project files each imports (type-only imports and re-exports included: a cycle of
 * types is still a cycle a reader has to hold in mind). Keys and values are paths relative to `root`.
 */
export function importGraph(root: string, dir = 'src'): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root, dir)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles.flatMap(({ fileName }) => resolveSpecifier(root, file, fileName) ?? []);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The cycles of `graph`: its strongly connected components of more than one file (Tarjan), each sorted. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
