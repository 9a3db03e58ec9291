import type { DraftEdge, DraftNode } from './workflow-check';

/** The node types the editor can add, with the data a new one starts with (valid once its blanks are filled). */
export const ADDABLE_TYPES = ['llm', 'tool', 'template', 'condition', 'map', 'loop'] as const;
export type AddableType = (typeof ADDABLE_TYPES)[number];
/** Inside a map or loop: the nodes that can run per item or iteration. */
export const NESTED_ADDABLE_TYPES = ['llm', 'tool', 'template'] as const;

interface Graph {
  nodes?: DraftNode[];
  edges?: DraftEdge[];
}

/** A nested graph that passes its item (map) or its iteration's index (loop) straight through. */
const passThrough = (prefix: string, outputs: Record<string, unknown>) => ({
  nodes: [
    { id: `${prefix}-start`, type: 'start', data: {} },
    { id: `${prefix}-end`, type: 'end', data: { outputs } },
  ],
  edges: [{ source: `${prefix}-start`, target: `${prefix}-end` }],
});

/** `subject`: what a new LLM or template node starts from (a nested node's `{{item}}`), else blank. */
export function newNodeData(type: AddableType, id: string, subject = ''): Record<string, unknown> {
  switch (type) {
    case 'llm':
      return { prompt: subject };
    case 'tool':
      return { tool: '', arguments: {} };
    case 'template':
      return { template: subject };
    case 'condition':
      return { conditions: [{ left: '', op: 'equals', right: '' }] };
    case 'map':
      return { items: '', concurrency: 4, on_item_error: 'fail', ...passThrough(id, { result: '{{item}}' }) };
    case 'loop':
      return {
        max_iterations: 3,
        conditions: [{ left: '{{last.iteration}}', op: 'less_than', right: 2 }],
        ...passThrough(id, { iteration: '{{iteration}}' }),
      };
  }
}

/** `map-1`, `map-2`, …: the first id of that type no node (nested ones included) has. */
export function freeId(taken: ReadonlySet<string>, type: string): string {
  for (let number = 1; ; number += 1) {
    if (!taken.has(`${type}-${number}`)) return `${type}-${number}`;
  }
}

/** Every node id of a graph, those of the graphs nested in its map and loop nodes included. */
export function allNodeIds(graph: Graph, into = new Set<string>()): Set<string> {
  for (const node of graph.nodes ?? []) {
    into.add(node.id);
    if (Array.isArray(node.data?.nodes)) allNodeIds({ nodes: node.data.nodes as DraftNode[] }, into);
  }
  return into;
}

/**
 * A graph with a new node of `type` right after `after`: the edges that left `after` now leave the new node
 * (conditions kept), and one edge joins the two. Without `after` (or an unknown one) the node is added unconnected.
 */
export function insertNode<G extends Graph>(
  graph: G,
  after: string | null,
  type: AddableType,
  id: string,
  subject = '',
): G & { nodes: DraftNode[]; edges: DraftEdge[] } {
  const nodes = [...(graph.nodes ?? [])];
  const edges = graph.edges ?? [];
  const node: DraftNode = { id, type, data: newNodeData(type, id, subject) };
  const index = nodes.findIndex((candidate) => candidate.id === after);
  if (index === -1) return { ...graph, nodes: [...nodes, node], edges };
  nodes.splice(index + 1, 0, node);
  const moved = edges.map((edge) => (edge.source === after ? { ...edge, source: id } : edge));
  return { ...graph, nodes, edges: [...moved, { source: after as string, target: id }] };
}

/**
 * Adds a node to the graph nested in a map or loop node: after its start node, before what followed it; a new
 * LLM or template node starts from the current item (map) or the iteration's index (loop).
 */
export function insertNestedNode(
  parent: DraftNode,
  type: AddableType,
  taken: ReadonlySet<string>,
): Record<string, unknown> {
  const data = parent.data ?? {};
  const nested = { nodes: (data.nodes ?? []) as DraftNode[], edges: (data.edges ?? []) as DraftEdge[] };
  const start = nested.nodes.find((node) => node.type === 'start')?.id ?? null;
  const subject = parent.type === 'map' ? '{{item}}' : '{{iteration}}';
  const next = insertNode(nested, start, type, freeId(taken, type), subject);
  return { ...data, nodes: next.nodes, edges: next.edges };
}

/** How many nodes a map or loop node runs per item or iteration (its start and end nodes aside); null for others. */
export function nestedNodeCount(node: DraftNode): number | null {
  if (node.type !== 'map' && node.type !== 'loop') return null;
  const nodes = Array.isArray(node.data?.nodes) ? (node.data.nodes as DraftNode[]) : null;
  if (nodes === null) return typeof node.data?.tool === 'string' ? 1 : 0;
  return nodes.filter((nested) => nested?.type !== 'start' && nested?.type !== 'end').length;
}

/** `map · 2 nested nodes` under a node's id in the graph. */
export function nodeTypeText(node: DraftNode): string {
  const count = nestedNodeCount(node);
  if (count === null) return node.type;
  if (node.type === 'map' && typeof node.data?.tool === 'string') return `map · tool ${node.data.tool || '(none)'}`;
  return `${node.type} · ${count} nested node${count === 1 ? '' : 's'}`;
}
