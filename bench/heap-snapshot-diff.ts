import { readFileSync } from 'node:fs';

/**
 * Compares two V8 heap snapshots of one process (`v8.writeHeapSnapshot()`, e.g. `BENCH_SOAK_SNAPSHOTS=dir` in the
 * soak bench): what grew by constructor (count and self size), and for the objects that are new in the second, which
 * older object holds them (the first object of the first snapshot on each new object's shortest path from the GC
 * roots), so that a growing cache or map shows as its owner and the field that holds it.
 * `node --max-old-space-size=6000 -r @swc-node/register bench/heap-snapshot-diff.ts before.heapsnapshot after.heapsnapshot`
 */

interface Snapshot {
  nodeFieldCount: number;
  edgeFieldCount: number;
  nodes: Float64Array;
  edges: Uint32Array;
  strings: string[];
  nodeTypes: string[];
  edgeTypes: string[];
  /** Index of each node's first edge, in edges (already multiplied by the edge field count). */
  firstEdge: Uint32Array;
  nodeCount: number;
}

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

// Node fields: type, name, id, self_size, edge_count, …; edge fields: type, name_or_index, to_node.
const TYPE = 0;
const NAME = 1;
const ID = 2;
const SELF_SIZE = 3;
const EDGE_COUNT = 4;

function readSnapshot(path: string): Snapshot {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const meta = raw.snapshot.meta;
  const nodeFieldCount = meta.node_fields.length;
  const edgeFieldCount = meta.edge_fields.length;
  const nodes = Float64Array.from(raw.nodes);
  const edges = Uint32Array.from(raw.edges);
  const nodeCount = nodes.length / nodeFieldCount;
  const firstEdge = new Uint32Array(nodeCount + 1);
  for (let node = 0, edge = 0; node < nodeCount; node++) {
    firstEdge[node] = edge;
    edge += nodes[node * nodeFieldCount + EDGE_COUNT] * edgeFieldCount;
    firstEdge[node + 1] = edge;
  }
  return {
    nodeFieldCount,
    edgeFieldCount,
    nodes,
    edges,
    strings: raw.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    firstEdge,
    nodeCount,
  };
}

const field = (snapshot: Snapshot, node: number, offset: number): number =>
  snapshot.nodes[node * snapshot.nodeFieldCount + offset];

/** A node's group: its type, and for objects and closures its constructor or function name. */
function groupOf(snapshot: Snapshot, node: number): string {
  const type = snapshot.nodeTypes[field(snapshot, node, TYPE)];
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return `(${type})`;
  if (type === 'number' || type === 'code') return `(${type})`;
  const name = snapshot.strings[field(snapshot, node, NAME)];
  if (type === 'object' || type === 'closure' || type === 'native')
    return `${name}${type === 'object' ? '' : ` (${type})`}`;
  return `(${type}) ${name.slice(0, 60)}`;
}

function edgeName(snapshot: Snapshot, edge: number): string {
  const type = snapshot.edgeTypes[snapshot.edges[edge]];
  const nameOrIndex = snapshot.edges[edge + 1];
  // Indexes differ per entry of one array or map table; without them, a table's entries add up to one row.
  if (type === 'element' || type === 'hidden') return '[]';
  return snapshot.strings[nameOrIndex] ?? String(nameOrIndex);
}

interface Totals {
  count: number;
  size: number;
}

function totalsByGroup(snapshot: Snapshot): Map<string, Totals> {
  const totals = new Map<string, Totals>();
  for (let node = 0; node < snapshot.nodeCount; node++) {
    const group = groupOf(snapshot, node);
    const entry = totals.get(group) ?? { count: 0, size: 0 };
    entry.count += 1;
    entry.size += field(snapshot, node, SELF_SIZE);
    totals.set(group, entry);
  }
  return totals;
}

/** Breadth-first from the root over strong edges: each reachable node's parent node and the edge from it. */
function shortestPaths(snapshot: Snapshot): { parent: Int32Array; parentEdge: Int32Array } {
  const parent = new Int32Array(snapshot.nodeCount).fill(-1);
  const parentEdge = new Int32Array(snapshot.nodeCount).fill(-1);
  const weak = snapshot.edgeTypes.indexOf('weak');
  const queue = new Int32Array(snapshot.nodeCount);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  parent[0] = 0;
  while (head < tail) {
    const node = queue[head++];
    for (let edge = snapshot.firstEdge[node]; edge < snapshot.firstEdge[node + 1]; edge += snapshot.edgeFieldCount) {
      if (snapshot.edges[edge] === weak) continue;
      const to = snapshot.edges[edge + 2] / snapshot.nodeFieldCount;
      if (parent[to] !== -1) continue;
      parent[to] = node;
      parentEdge[to] = edge;
      queue[tail++] = to;
    }
  }
  return { parent, parentEdge };
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(2);

function printGrowth(before: Snapshot, after: Snapshot, rows: number): void {
  const a = totalsByGroup(before);
  const b = totalsByGroup(after);
  const growth = [...b].map(([group, totals]) => {
    const old = a.get(group) ?? { count: 0, size: 0 };
    return { group, count: totals.count - old.count, size: totals.size - old.size };
  });
  growth.sort((x, y) => y.size - x.size);
  const sum = (map: Map<string, Totals>) => [...map.values()].reduce((total, entry) => total + entry.size, 0);
  console.log(`self size of all nodes: ${mb(sum(a))} MB -> ${mb(sum(b))} MB (${mb(sum(b) - sum(a))} MB)`);
  console.log('\ngrowth by group (self size):');
  for (const row of growth.slice(0, rows)) {
    console.log(`${mb(row.size).padStart(8)} MB ${String(row.count).padStart(9)} objects  ${row.group}`);
  }
}

/** New objects' self size by the older object that holds them: its group, the path from it (3 edges) and a sample. */
function printHolders(before: Snapshot, after: Snapshot, rows: number): void {
  const oldIds = new Set<number>();
  for (let node = 0; node < before.nodeCount; node++) oldIds.add(field(before, node, ID));
  const { parent, parentEdge } = shortestPaths(after);
  const holders = new Map<string, { size: number; count: number }>();
  const newByGroup = new Map<string, Totals>();
  let unreachable = 0;
  for (let node = 0; node < after.nodeCount; node++) {
    if (oldIds.has(field(after, node, ID))) continue;
    const size = field(after, node, SELF_SIZE);
    const group = newByGroup.get(groupOf(after, node)) ?? { count: 0, size: 0 };
    group.count += 1;
    group.size += size;
    newByGroup.set(groupOf(after, node), group);
    if (parent[node] === -1) {
      unreachable += size;
      continue;
    }
    const path: string[] = [];
    let current = node;
    while (current !== 0 && !oldIds.has(field(after, current, ID))) {
      path.push(edgeName(after, parentEdge[current]));
      current = parent[current];
    }
    const tail = path.reverse().slice(0, 3).join('.');
    const key = `${groupOf(after, current)} @${field(after, current, ID)} .${tail}`;
    const entry = holders.get(key) ?? { size: 0, count: 0 };
    entry.size += size;
    entry.count += 1;
    holders.set(key, entry);
  }
  // Group the holders again without their ids, so that many instances of one holder type add up.
  const byType = new Map<string, { size: number; count: number; holders: number; sample: string }>();
  for (const [key, entry] of holders) {
    const typeKey = key.replace(/ @\d+ /, ' ');
    const row = byType.get(typeKey) ?? { size: 0, count: 0, holders: 0, sample: key };
    row.size += entry.size;
    row.count += entry.count;
    row.holders += 1;
    byType.set(typeKey, row);
  }
  console.log('\nnew objects by group:');
  for (const [group, totals] of [...newByGroup].sort((x, y) => y[1].size - x[1].size).slice(0, rows / 2)) {
    console.log(`${mb(totals.size).padStart(8)} MB ${String(totals.count).padStart(9)} objects  ${group}`);
  }
  const sorted = [...byType].sort((x, y) => y[1].size - x[1].size);
  console.log(`\nnew objects by the old object that holds them (unreachable new: ${mb(unreachable)} MB):`);
  for (const [key, row] of sorted.slice(0, rows)) {
    console.log(
      `${mb(row.size).padStart(8)} MB ${String(row.count).padStart(9)} objects ${String(row.holders).padStart(5)} holders  ${key}` +
        `  (${row.holders === 1 ? '' : 'e.g. '}${row.sample.match(/@\d+/)?.[0]})`,
    );
  }
}

/** The shortest path from the root to the node with heap id `id` in `after`, for reading a holder's place. */
function printPath(after: Snapshot, id: number): void {
  const { parent, parentEdge } = shortestPaths(after);
  let node = -1;
  for (let index = 0; index < after.nodeCount; index++) if (field(after, index, ID) === id) node = index;
  if (node === -1) return console.log(`no node @${id}`);
  const steps: string[] = [];
  while (node > 0 && parent[node] !== -1) {
    steps.push(`${groupOf(after, node)} @${field(after, node, ID)} via .${edgeName(after, parentEdge[node])}`);
    node = parent[node];
  }
  console.log(`\npath to @${id}:\n  ${steps.reverse().join('\n  ')}`);
}

function main(): void {
  const [beforePath, afterPath, ...ids] = process.argv.slice(2);
  if (!beforePath || !afterPath)
    throw new Error('usage: heap-snapshot-diff.ts before.heapsnapshot after.heapsnapshot [@id…]');
  const before = readSnapshot(beforePath);
  const after = readSnapshot(afterPath);
  const rows = Number(process.env.ROWS ?? 40);
  if (ids.length > 0) {
    for (const id of ids) printPath(after, Number(id.replace('@', '')));
    return;
  }
  printGrowth(before, after, rows);
  printHolders(before, after, rows);
}

main();
