import type { FieldProblem } from '../common/errors/domain-error';
import { checkParametersSchema } from '../registry/arguments';
import { checkShape } from './definition-shape';
import type { WorkflowDefinition, WorkflowEdge, WorkflowNode } from './definition.types';
import { graphOrder } from './graph-order';
import { findReferences } from './references';

const NODE_OUTPUT_FIELDS: Record<string, readonly string[] | null> = {
  start: null,
  llm: ['output', 'tool_calls', 'usage', 'stop_reason', 'iterations_used'],
  template: ['output'],
  condition: ['output'],
  tool: ['output', 'data', 'status', 'error'],
  end: ['outputs'],
};

export interface DefinitionAnalysis {
  problems: FieldProblem[];
  /** Node ids in an order where every node comes after all its sources. */
  order: string[];
  /** Tool names used by llm and tool nodes, by node id. */
  toolsByNode: Map<string, string[]>;
}

const nodeField = (index: number, node: WorkflowNode | undefined, rest = '') =>
  `nodes[${index}]${node?.id ? `(${node.id})` : ''}${rest}`;

/** Structure checks that need no database: shape, ids, edges, cycles, reachability, references. */
export function analyzeDefinition(input: unknown): DefinitionAnalysis {
  const empty: DefinitionAnalysis = { problems: [], order: [], toolsByNode: new Map() };
  const shapeProblems = checkShape(input);
  if (shapeProblems.length > 0) return { ...empty, problems: shapeProblems };
  const definition = input as WorkflowDefinition;
  const problems: FieldProblem[] = [];
  const byId = new Map<string, WorkflowNode>();
  definition.nodes.forEach((node, index) => {
    if (byId.has(node.id))
      problems.push({ field: nodeField(index, node, '.id'), message: `duplicate node id "${node.id}"` });
    byId.set(node.id, node);
  });
  const starts = definition.nodes.filter((node) => node.type === 'start');
  const ends = definition.nodes.filter((node) => node.type === 'end');
  if (starts.length !== 1)
    problems.push({ field: 'nodes', message: `needs exactly one start node, found ${starts.length}` });
  if (ends.length === 0) problems.push({ field: 'nodes', message: 'needs at least one end node' });
  if (definition.inputs) {
    for (const problem of checkParametersSchema(definition.inputs).problems) {
      problems.push({ field: `inputs${problem.path.replace(/\//g, '.')}`, message: problem.message });
    }
  }

  const outgoing = new Map<string, WorkflowEdge[]>();
  const incoming = new Map<string, WorkflowEdge[]>();
  definition.edges.forEach((edge, index) => {
    for (const end of ['source', 'target'] as const) {
      if (!byId.has(edge[end])) {
        problems.push({ field: `edges[${index}].${end}`, message: `no node with id "${edge[end]}"` });
      }
    }
    const source = byId.get(edge.source);
    if (source?.type === 'end')
      problems.push({ field: `edges[${index}]`, message: `end node "${edge.source}" cannot have outgoing edges` });
    if (byId.get(edge.target)?.type === 'start') {
      problems.push({ field: `edges[${index}]`, message: `start node "${edge.target}" cannot have incoming edges` });
    }
    if (source && source.type !== 'condition' && edge.condition !== undefined) {
      problems.push({
        field: `edges[${index}].condition`,
        message: `only edges leaving a condition node carry a condition`,
      });
    }
    if (source?.type === 'condition' && edge.condition === undefined) {
      problems.push({
        field: `edges[${index}].condition`,
        message: `edges leaving condition node "${edge.source}" need condition "true" or "false"`,
      });
    }
    outgoing.set(edge.source, [...(outgoing.get(edge.source) ?? []), edge]);
    incoming.set(edge.target, [...(incoming.get(edge.target) ?? []), edge]);
  });
  if (problems.length > 0) return { ...empty, problems };

  const { order, cyclic } = graphOrder(
    definition.nodes.map((node) => node.id),
    definition.edges,
  );
  if (cyclic.length > 0) {
    problems.push({
      field: 'edges',
      message: `cycle through nodes ${cyclic.join(', ')}: loops have no bound in a workflow; use an LLM node's max_iterations instead`,
    });
    return { ...empty, problems };
  }

  const reachable = new Set<string>();
  const visit = (id: string) => {
    if (reachable.has(id)) return;
    reachable.add(id);
    for (const edge of outgoing.get(id) ?? []) visit(edge.target);
  };
  visit(starts[0].id);
  if (!ends.some((end) => reachable.has(end.id))) {
    problems.push({ field: 'nodes', message: `no end node is reachable from start node "${starts[0].id}"` });
  }
  definition.nodes.forEach((node, index) => {
    if (!reachable.has(node.id)) {
      problems.push({
        field: nodeField(index, node),
        message: `node "${node.id}" is not reachable from the start node`,
      });
    }
  });

  // Every reference must name the inputs or a node that runs before this one (an ancestor).
  const ancestors = new Map<string, Set<string>>();
  for (const id of order) {
    const set = new Set<string>();
    for (const edge of incoming.get(id) ?? []) {
      set.add(edge.source);
      for (const ancestor of ancestors.get(edge.source) ?? []) set.add(ancestor);
    }
    ancestors.set(id, set);
  }
  const toolsByNode = new Map<string, string[]>();
  definition.nodes.forEach((node, index) => {
    for (const reference of findReferences(node.data ?? {})) {
      checkReference(
        reference.root,
        reference.path,
        reference.text,
        ancestors.get(node.id) ?? new Set(),
        byId,
        (message) => problems.push({ field: nodeField(index, node, '.data'), message }),
      );
    }
    const data = node.data ?? {};
    if (node.type === 'llm' && data.enable_tools !== false && Array.isArray(data.tools) && data.tools.length > 0) {
      toolsByNode.set(node.id, data.tools as string[]);
    }
    if (node.type === 'llm' && data.enable_tools === true && (!Array.isArray(data.tools) || data.tools.length === 0)) {
      problems.push({
        field: nodeField(index, node, '.data.tools'),
        message: 'enable_tools is true but no tools are listed',
      });
    }
    if (node.type === 'tool') toolsByNode.set(node.id, [data.tool as string]);
  });
  const allNodes = new Set(definition.nodes.map((node) => node.id));
  for (const reference of findReferences(definition.outputs ?? {})) {
    checkReference(reference.root, reference.path, reference.text, allNodes, byId, (message) =>
      problems.push({ field: 'outputs', message }),
    );
  }
  return { problems, order, toolsByNode };
}

function checkReference(
  root: string,
  path: string[],
  text: string,
  visible: Set<string>,
  byId: Map<string, WorkflowNode>,
  report: (message: string) => void,
): void {
  if (root === 'inputs') return;
  const target = byId.get(root);
  if (!target) {
    report(`${text} refers to node "${root}", which does not exist`);
    return;
  }
  if (!visible.has(root)) {
    report(`${text} refers to node "${root}", which does not run before this node`);
    return;
  }
  const fields = NODE_OUTPUT_FIELDS[target.type];
  if (fields && path.length > 0 && !fields.includes(path[0])) {
    report(`${text}: a ${target.type} node has no "${path[0]}" (it has ${fields.join(', ')})`);
  }
}
