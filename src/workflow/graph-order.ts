import type { WorkflowEdge } from './definition.schema';

export interface GraphOrder {
  /** Every node after all of its sources (Kahn's algorithm); incomplete when there is a cycle. */
  order: string[];
  /** Nodes on a cycle (or between two), without those merely downstream of one. */
  cyclic: string[];
}

const peel = (ids: readonly string[], edges: readonly WorkflowEdge[], from: 'source' | 'target'): string[] => {
  const to = from === 'source' ? 'target' : 'source';
  const degree = new Map(ids.map((id) => [id, 0]));
  for (const edge of edges) degree.set(edge[to], (degree.get(edge[to]) ?? 0) + 1);
  const queue = ids.filter((id) => degree.get(id) === 0);
  const peeled: string[] = [];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    peeled.push(id);
    for (const edge of edges) {
      if (edge[from] !== id) continue;
      const left = (degree.get(edge[to]) ?? 0) - 1;
      degree.set(edge[to], left);
      if (left === 0) queue.push(edge[to]);
    }
  }
  return peeled;
};

/** Topological order of the nodes; what neither end of the graph can peel off sits on a cycle. */
export function graphOrder(ids: readonly string[], edges: readonly WorkflowEdge[]): GraphOrder {
  const order = peel(ids, edges, 'source');
  if (order.length === ids.length) return { order, cyclic: [] };
  const left = ids.filter((id) => !order.includes(id));
  const inside = edges.filter((edge) => left.includes(edge.source) && left.includes(edge.target));
  const downstream = new Set(peel(left, inside, 'target'));
  return { order, cyclic: left.filter((id) => !downstream.has(id)) };
}
