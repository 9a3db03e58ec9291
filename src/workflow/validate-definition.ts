import type { FieldProblem } from '../common/errors/domain-error';
import { checkParametersSchema } from '../json-schema/check-parameters-schema';
import { checkShape } from './definition-shape';
import type { WorkflowDefinition, WorkflowEdge, WorkflowNode } from './definition.schema';
import { graphOrder } from './graph-order';
import type { NodeCheckContext, NodeHandler, ToolUse } from './nodes/node-handler';
import { NODE_HANDLERS, NODE_TYPES } from './nodes/node-handlers';
import { checkReferences } from './check-references';
import type { OutputShape } from './nodes/output-shape';

const handlerOf = (node: WorkflowNode): NodeHandler => (NODE_HANDLERS as Record<string, NodeHandler>)[node.type];
const typesWhere = (has: (handler: NodeHandler) => boolean): string =>
  NODE_TYPES.filter((type) => has(NODE_HANDLERS[type] as NodeHandler)).join(' or ');
const ENTRY = typesWhere((handler) => handler.entry === true);
const EXIT = typesWhere((handler) => handler.exit === true);
const BRANCHING = typesWhere((handler) => handler.branches === true);

export interface DefinitionAnalysis {
  problems: FieldProblem[];
  /** What works but should change (a deprecated output field): the save response shows them. */
  warnings: FieldProblem[];
  /** What this service lacks to run it (a provider or model it does not have); see DataProblem.unconfigured. */
  unconfigured: FieldProblem[];
  /** Node ids in an order where every node comes after all its sources. */
  order: string[];
  /** The tools each node calls (and the data field naming them), by node id. */
  toolsByNode: Map<string, ToolUse>;
}

const nodeField = (index: number, node: WorkflowNode | undefined, rest = '') =>
  `nodes[${index}]${node?.id ? `(${node.id})` : ''}${rest}`;

/** What a graph nested in a node (map, loop) sees of the graph around it. */
interface OuterGraph {
  /** The nodes that run before the node the graph is nested in, by id. */
  visible: ReadonlyMap<string, WorkflowNode>;
  /** Every node id around it: nested ids must differ from them, or their references would be ambiguous. */
  ids: ReadonlySet<string>;
  /** What the nodes it is nested in put in scope (`item`, `item_index`, `iteration`, `last`), with their shapes. */
  scope: Readonly<Record<string, OutputShape>>;
}

const NO_OUTER: OuterGraph = { visible: new Map(), ids: new Set(), scope: {} };

/** Checks that need no database: shape, ids, edges, cycles, reachability, references, each node type's own checks. */
export function analyzeDefinition(
  input: unknown,
  context: NodeCheckContext,
  outer: OuterGraph = NO_OUTER,
): DefinitionAnalysis {
  const empty: DefinitionAnalysis = { problems: [], warnings: [], unconfigured: [], order: [], toolsByNode: new Map() };
  const shapeProblems = checkShape(input);
  if (shapeProblems.length > 0) return { ...empty, problems: shapeProblems };
  const definition = input as WorkflowDefinition;
  const problems: FieldProblem[] = [];
  const byId = new Map<string, WorkflowNode>();
  definition.nodes.forEach((node, index) => {
    if (byId.has(node.id))
      problems.push({ field: nodeField(index, node, '.id'), message: `duplicate node id "${node.id}"` });
    if (outer.ids.has(node.id) || node.id in outer.scope || node.id === 'inputs') {
      problems.push({
        field: nodeField(index, node, '.id'),
        message: `node id "${node.id}" is taken around this nested graph: give the nested node another id`,
      });
    }
    byId.set(node.id, node);
  });
  const starts = definition.nodes.filter((node) => handlerOf(node).entry === true);
  const ends = definition.nodes.filter((node) => handlerOf(node).exit === true);
  if (starts.length !== 1)
    problems.push({ field: 'nodes', message: `needs exactly one ${ENTRY} node, found ${starts.length}` });
  if (ends.length === 0) problems.push({ field: 'nodes', message: `needs at least one ${EXIT} node` });
  if (definition.inputs && outer === NO_OUTER) {
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
    const target = byId.get(edge.target);
    const sourceHandler = source && handlerOf(source);
    if (sourceHandler?.exit)
      problems.push({
        field: `edges[${index}]`,
        message: `${source?.type} node "${edge.source}" cannot have outgoing edges`,
      });
    if (target && handlerOf(target).entry) {
      problems.push({
        field: `edges[${index}]`,
        message: `${target.type} node "${edge.target}" cannot have incoming edges`,
      });
    }
    if (sourceHandler && !sourceHandler.branches && edge.condition !== undefined) {
      problems.push({
        field: `edges[${index}].condition`,
        message: `only edges leaving a ${BRANCHING} node carry a condition`,
      });
    }
    if (sourceHandler?.branches && edge.condition === undefined) {
      problems.push({
        field: `edges[${index}].condition`,
        message: `edges leaving ${source?.type} node "${edge.source}" need condition "true" or "false"`,
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
  const references = checkReferences(definition, { byId, ancestors, outer: outer.visible, scope: outer.scope });
  problems.push(...references.problems);
  const warnings = [...references.warnings];
  const unconfigured: FieldProblem[] = [];
  const toolsByNode = new Map<string, ToolUse>();
  const allIds = new Set([...outer.ids, ...byId.keys()]);
  definition.nodes.forEach((node, index) => {
    const handler = handlerOf(node);
    const data = node.data ?? {};
    const nested = handler.nested?.(data) ?? null;
    const tools = handler.toolsUsed?.(data) ?? null;
    if (nested) {
      const visible = new Map(outer.visible);
      for (const id of ancestors.get(node.id) ?? []) visible.set(id, byId.get(id) as WorkflowNode);
      // The nested start node outputs the run inputs too.
      const inner = {
        name: node.id,
        nodes: nested.nodes,
        edges: nested.edges,
        ...(definition.inputs && { inputs: definition.inputs }),
      };
      const analysis = analyzeDefinition(inner, context, {
        visible,
        ids: allIds,
        scope: { ...outer.scope, ...handler.scope?.(data) },
      });
      const inside = (problem: FieldProblem): FieldProblem => {
        const inner = problem.field.replace(/^definition\.?/, '');
        return {
          ...problem,
          field: nodeField(index, node, `.data.${inner || nested.field}`),
          ...(problem.pointer ? { pointer: `/nodes/${index}/data${problem.pointer}` } : {}),
        };
      };
      problems.push(...analysis.problems.map(inside));
      warnings.push(...analysis.warnings.map(inside));
      unconfigured.push(...analysis.unconfigured.map(inside));
      const use = mergeToolUses(tools, [...analysis.toolsByNode.values()].reduce(mergeToolUses, null));
      if (use) toolsByNode.set(node.id, { ...use, field: tools?.field ?? nested.field });
    } else if (tools) toolsByNode.set(node.id, tools);
    for (const problem of handler.check?.(data, context) ?? []) {
      const found = { field: nodeField(index, node, `.data.${problem.field}`), message: problem.message };
      (problem.unconfigured ? unconfigured : problems).push(found);
    }
  });
  return { problems, warnings, unconfigured, order, toolsByNode };
}

/** Two tool uses as one: the names and selectors of both, each once. */
function mergeToolUses(first: ToolUse | null, second: ToolUse | null): ToolUse | null {
  if (!first || !second) return first ?? second;
  const selectors = [...new Set([...(first.selectors ?? []), ...(second.selectors ?? [])])];
  return {
    field: first.field,
    names: [...new Set([...first.names, ...second.names])],
    ...(selectors.length > 0 ? { selectors } : {}),
  };
}
