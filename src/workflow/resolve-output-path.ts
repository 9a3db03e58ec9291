import { closestMatch } from '../json-schema/edit-distance';
import { REPLACED_BY, type OutputShape } from './nodes/output-shape';

type Shape = Record<string, unknown>;

/** What a path into an output shape reaches. */
export type PathResolution =
  | {
      ok: true;
      /** The shape at the end of the path (`{}`: any JSON, checked at run time). */
      shape: Shape;
      /** Deprecated fields the path goes through, each with the field that replaced it. */
      deprecated: Array<{ path: string; replacement: string }>;
      /** Set when the path leaves what the shape declares though the shape allows it (an undeclared input). */
      undeclared?: { path: string; suggestion?: string };
    }
  | {
      ok: false;
      /** Why the path cannot exist, naming the segment where it breaks. */
      message: string;
      /** The whole path as it probably was meant, when one is close. */
      suggestion?: string;
    };

type Step = { ok: true; shape: Shape; undeclared?: boolean } | { ok: false; message: string; candidates?: string[] };

const typesOf = (shape: Shape): string[] => {
  if (Array.isArray(shape.type)) return shape.type as string[];
  if (typeof shape.type === 'string') return [shape.type];
  if (Array.isArray(shape.enum)) return [...new Set((shape.enum as unknown[]).map(jsonType))];
  if ('const' in shape) return [jsonType(shape.const)];
  if (shape.properties || shape.additionalProperties !== undefined) return ['object'];
  if (shape.items) return ['array'];
  return [];
};

const jsonType = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value;

const isIndex = (segment: string) => /^\d+$/.test(segment);
const ANY: Shape = {};

/** One segment into a shape without alternatives. */
function stepInto(shape: Shape, segment: string, at: string): Step {
  const types = typesOf(shape);
  // No type, a $ref, an allOf …: any JSON as far as the check knows; the run checks the value.
  if (types.length === 0) return { ok: true, shape: ANY };
  if (types.length > 1) {
    const steps = types.map((type) => stepInto({ ...shape, type }, segment, at));
    return steps.find((step) => step.ok) ?? steps.find((step) => step.ok === false && step.candidates) ?? steps[0];
  }
  const [type] = types;
  if (type === 'object') {
    const properties = (shape.properties ?? {}) as Record<string, Shape>;
    if (Object.hasOwn(properties, segment)) return { ok: true, shape: properties[segment] };
    const additional = shape.additionalProperties;
    const names = Object.keys(properties);
    if (additional === false) {
      const list = names.length > 0 ? `; it has ${names.join(', ')}` : '';
      return { ok: false, message: `${at} has no field "${segment}"${list}`, candidates: names };
    }
    if (additional && typeof additional === 'object') return { ok: true, shape: additional as Shape };
    return { ok: true, shape: ANY, undeclared: names.length > 0 };
  }
  if (type === 'array') {
    if (segment === 'length') return { ok: true, shape: { type: 'integer' } };
    if (!isIndex(segment)) return { ok: false, message: `${at} is an array: read an item with [n], not "${segment}"` };
    const items = shape.items;
    return { ok: true, shape: items && typeof items === 'object' && !Array.isArray(items) ? (items as Shape) : ANY };
  }
  if (type === 'string' && segment === 'length') return { ok: true, shape: { type: 'integer' } };
  return { ok: false, message: `${at} is a ${type === 'integer' ? 'number' : type} and has no field "${segment}"` };
}

/** One segment into a shape, trying each alternative of an anyOf/oneOf. */
function step(shape: Shape, segment: string, at: string): Step {
  const alternatives = (shape.anyOf ?? shape.oneOf) as Shape[] | undefined;
  if (!Array.isArray(alternatives)) return stepInto(shape, segment, at);
  const steps = alternatives.map((alternative) => step(alternative, segment, at));
  return steps.find((result) => result.ok) ?? steps[0] ?? { ok: true, shape: ANY };
}

const joinPath = (path: readonly string[]): string =>
  path.map((segment, index) => (isIndex(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');

function walk(shape: Shape, path: readonly string[], name: string, label: string): PathResolution {
  const deprecated: Array<{ path: string; replacement: string }> = [];
  let undeclared: { path: string; suggestion?: string } | undefined;
  let current = shape;
  for (const [index, segment] of path.entries()) {
    const at = index === 0 ? label : `${name}.${joinPath(path.slice(0, index))}`;
    const next = step(current, segment, at);
    if (!next.ok) {
      const closest = next.candidates && closestMatch(segment, next.candidates);
      const suggestion = closest ? joinPath([...path.slice(0, index), closest, ...path.slice(index + 1)]) : undefined;
      return { ok: false, message: next.message, ...(suggestion ? { suggestion } : {}) };
    }
    if (next.undeclared && !undeclared) {
      const names = Object.keys(current.properties ?? {});
      const closest = closestMatch(segment, names);
      undeclared = {
        path: joinPath(path.slice(0, index + 1)),
        ...(closest ? { suggestion: joinPath([...path.slice(0, index), closest, ...path.slice(index + 1)]) } : {}),
      };
    }
    const replacement = next.shape[REPLACED_BY];
    if (typeof replacement === 'string') {
      deprecated.push({ path: joinPath(path.slice(0, index + 1)), replacement });
    }
    current = next.shape;
  }
  return { ok: true, shape: current, deprecated, ...(undeclared ? { undeclared } : {}) };
}

/**
 * Where `path` leads in an output shape: the shape it reaches, or why it cannot exist with the path probably
 * meant (a near miss of a field name, or the same rest under a sibling field that can hold it: `output.sum` on
 * a tool node, whose `output` is text, → `data.sum`). Messages name the output `label` (`tool node "t_add"`) and
 * what is inside it by its path from `name` (`t_add.output`).
 */
export function resolveOutputPath(
  shape: OutputShape,
  path: readonly string[],
  name: string,
  label = name,
): PathResolution {
  const result = walk(shape, path, name, label);
  if (result.ok || result.suggestion || path.length < 2) return result;
  const siblings = Object.keys((shape as Shape).properties ?? {}).filter((field) => field !== path[0]);
  for (const sibling of siblings) {
    const candidate = [sibling, ...path.slice(1)];
    const resolved = walk(shape, candidate, name, label);
    if (resolved.ok && resolved.deprecated.length === 0) return { ...result, suggestion: joinPath(candidate) };
  }
  return result;
}
