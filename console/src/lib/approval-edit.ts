import type { FieldProblem } from '../api/types';

/** Edited arguments the API refused (422), as sent, with its problems by field path relative to the arguments. */
export interface Refusal {
  arguments: string;
  problems: Record<string, string>;
}

/** `arguments.amount` → `amount`; a problem not about one argument → null. */
export const relativeField = (field: string): string | null =>
  field.startsWith('arguments.') ? field.slice('arguments.'.length) : null;

/** The value at a dotted path (`address.city`); undefined where the path leads nowhere. */
export const valueAt = (value: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (node, part) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined),
      value,
    );

/** What a 422 for edited arguments says about each argument, kept with exactly what was sent (as JSON). */
export function refusalOf(sent: string, problems: FieldProblem[]): Refusal {
  const byField = problems.flatMap((problem) => {
    const path = relativeField(problem.field);
    return path ? [[path, problem.message] as const] : [];
  });
  return { arguments: sent, problems: Object.fromEntries(byField) };
}

/** The refused fields the person has not changed since: their problems stay shown until they do. */
export function unchangedProblems(refusal: Refusal | null, args: unknown): Record<string, string> {
  if (!refusal) return {};
  const before = JSON.parse(refusal.arguments) as unknown;
  return Object.fromEntries(
    Object.entries(refusal.problems).filter(
      ([path]) => JSON.stringify(valueAt(before, path)) === JSON.stringify(valueAt(args, path)),
    ),
  );
}

/** Problems no field of the edit form shows: the arguments as a whole, or a property the schema does not have. */
export function problemsBesideFields(problems: FieldProblem[], properties: string[], editing: boolean): FieldProblem[] {
  return problems.filter(
    (problem) => !editing || !properties.includes(relativeField(problem.field)?.split('.')[0] ?? ''),
  );
}
