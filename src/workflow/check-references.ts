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

  const check = (reference: Reference, pointer: string, field: string, visible: ReadonlySet<string> | null) => {
    const report = (into: FieldProblem[], message: string, suggestion?: string) =>
      into.push({
        field,
        pointer,
        message: `${reference.text}: ${message}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
        ...(suggestion ? { suggestion } : {}),
      });
    const { root, path } = reference;

    const target = root === 'inputs' ? start : graph.byId.get(root);
    if (!target) {
      const closest = closestMatch(root, ['inputs', ...nodeIds]);
      const suggestion = closest && rewrite(reference, closest, joined(reference));
      report(problems, `there is no node "${root}"`, suggestion);
      return;
    }
    if (root !== 'inputs' && visible && !visible.has(root)) {
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
    for (const reference of findReferences(node.data ?? {})) {
      const pointer = `${base}${reference.pointer}`;
      const field = pointerToField(`nodes[${index}](${node.id})`, pointer.replace(`/nodes/${index}`, ''));
      check(reference, pointer, field, graph.ancestors.get(node.id) ?? new Set());
    }
  });
  // The definition's outputs are read by whichever end node is reached: any node may have run by then.
  for (const reference of findReferences(definition.outputs ?? {})) {
    const pointer = `/outputs${reference.pointer}`;
    check(reference, pointer, pointerToField('outputs', reference.pointer), null);
  }
  return { problems, warnings };
}

const joined = (reference: Reference): string =>
  reference.path
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : segment))
    .join('.')
    .replace(/\.\[/g, '[');
