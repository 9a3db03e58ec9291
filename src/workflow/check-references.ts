import type { FieldProblem } from '../common/errors/domain-error';
import { closestMatch } from '../json-schema/edit-distance';
import { pointerToField } from '../json-schema/json-pointer';
import type { WorkflowDefinition, WorkflowNode } from './definition.schema';
import type { NodeHandler } from './nodes/node-handler';
import { NODE_HANDLERS } from './nodes/node-handlers';
import type { OutputShape } from './nodes/output-shape';
import { findReferences, type Reference } from './references';
import { resolveOutputPath } from './resolve-output-path';

/** What the references of a definition are checked against. */
export interface ReferenceGraph {
  byId: ReadonlyMap<string, WorkflowNode>;
  /** The nodes that run before each node (its ancestors). */
  ancestors: ReadonlyMap<string, ReadonlySet<string>>;
  /** For a graph nested in a node (map, loop): the nodes around it that run before that node. */
  outer?: ReadonlyMap<string, WorkflowNode>;
  /** For a nested graph: what the nodes it is nested in put in scope (`item`, `last` …), with their shapes. */
  scope?: Readonly<Record<string, OutputShape>>;
}

export interface ReferenceCheck {
  problems: FieldProblem[];
  /** References that work but read a deprecated field or an undeclared input. */
  warnings: FieldProblem[];
}

const handlerOf = (node: WorkflowNode): NodeHandler => (NODE_HANDLERS as Record<string, NodeHandler>)[node.type];

const rewrite = (reference: Reference, root: string, path: string): string =>
  `{{${root}${path.startsWith('[') || path === '' ? '' : '.'}${path}${reference.fallback ? ` ?? ${JSON.stringify(reference.fallback.value)}` : ''}}}`;

/**
 * Every `{{node.path}}` of a definition resolved against the output shape of the node it names: an unknown
 * node, a node that does not run before the one holding the reference, or a path the shape cannot have is a
 * problem at the JSON pointer of the string, with the reference probably meant when one is close.
 */
export function checkReferences(definition: WorkflowDefinition, graph: ReferenceGraph): ReferenceCheck {
  const problems: FieldProblem[] = [];
  const warnings: FieldProblem[] = [];
  const shapes = new Map<string, OutputShape>();
  const context = { ...(definition.inputs ? { inputs: definition.inputs } : {}) };
  const shapeOf = (node: WorkflowNode): OutputShape => {
    let shape = shapes.get(node.id);
    if (!shape) {
      shape = handlerOf(node).output(node.data ?? {}, context);
      shapes.set(node.id, shape);
    }
    return shape;
  };
  const start = definition.nodes.find((node) => handlerOf(node).entry === true);
  const nodeIds = [...graph.byId.keys()];

  const check = (
    reference: Reference,
    pointer: string,
    field: string,
    visible: ReadonlySet<string> | null,
    scope: Readonly<Record<string, OutputShape>> = graph.scope ?? {},
  ) => {
    const report = (into: FieldProblem[], message: string, suggestion?: string) =>
      into.push({
        field,
        pointer,
        message: `${reference.text}: ${message}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
        ...(suggestion ? { suggestion } : {}),
      });
    const { root, path } = reference;

    if (Object.hasOwn(scope, root)) {
      const resolved = resolveOutputPath(scope[root], path, root, `"${root}"`);
      if (!resolved.ok)
        report(problems, resolved.message, resolved.suggestion && rewrite(reference, root, resolved.suggestion));
      return;
    }
    const outer = graph.byId.has(root) ? undefined : graph.outer?.get(root);
    const target = root === 'inputs' ? start : (graph.byId.get(root) ?? outer);
    if (!target) {
      const closest = closestMatch(root, ['inputs', ...nodeIds, ...(graph.outer?.keys() ?? []), ...Object.keys(scope)]);
      const suggestion = closest && rewrite(reference, closest, joined(reference));
      report(problems, `there is no node "${root}"`, suggestion);
      return;
    }
    if (root !== 'inputs' && !outer && visible && !visible.has(root)) {
      report(problems, `node "${root}" does not run before this node`);
      return;
    }
    const label = root === 'inputs' ? 'the run inputs' : `${target.type} node "${root}"`;
    const resolved = resolveOutputPath(shapeOf(target), path, root, label);
    if (!resolved.ok) {
      report(problems, resolved.message, resolved.suggestion && rewrite(reference, root, resolved.suggestion));
      return;
    }
    for (const old of resolved.deprecated) {
      const renamed = joined(reference).replace(old.path, old.replacement);
      report(warnings, `"${old.path}" of a ${target.type} node is deprecated`, rewrite(reference, root, renamed));
    }
    if (resolved.undeclared) {
      const suggestion = resolved.undeclared.suggestion && rewrite(reference, root, resolved.undeclared.suggestion);
      report(warnings, `${root} declares no "${resolved.undeclared.path}"`, suggestion);
    }
  };

  definition.nodes.forEach((node, index) => {
    const base = `/nodes/${index}/data`;
    const handler = handlerOf(node);
    const data = node.data ?? {};
    // A nested graph's references are checked with its own graph (see analyzeDefinition); the node's own data
    // also sees what the node puts in scope (a map node's arguments read {{item}}).
    const nested = handler.nested?.(data);
    const own = nested ? withoutNested(data, nested.field) : data;
    const scope = { ...graph.scope, ...handler.scope?.(data) };
    for (const reference of findReferences(own)) {
      const pointer = `${base}${reference.pointer}`;
      const field = pointerToField(`nodes[${index}](${node.id})`, pointer.replace(`/nodes/${index}`, ''));
      check(reference, pointer, field, graph.ancestors.get(node.id) ?? new Set(), scope);
    }
  });
  // The definition's outputs are read by whichever end node is reached: any node may have run by then.
  for (const reference of findReferences(definition.outputs ?? {})) {
    const pointer = `/outputs${reference.pointer}`;
    check(reference, pointer, pointerToField('outputs', reference.pointer), null);
  }
  return { problems, warnings };
}

/** The node's data without its nested graph (`nodes` and the `edges` beside them). */
const withoutNested = (data: Record<string, unknown>, field: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(data).filter(([key]) => key !== field && key !== 'edges'));

const joined = (reference: Reference): string =>
  reference.path
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : segment))
    .join('.')
    .replace(/\.\[/g, '[');
