import { DomainError } from '../errors/domain-error';

export type SortDirection = 'ASC' | 'DESC';

/** The fields a list may be sorted by: API name → entity property. */
export type SortFields = Readonly<Record<string, string>>;

export interface SortKey {
  property: string;
  direction: SortDirection;
}

/** The `sort` query parameter's documentation for a list sortable by `fields`. */
export const sortDescription = (fields: SortFields, fallback: string): string =>
  `Comma-separated fields, \`-\` for descending (e.g. \`-created_at,name\`). ` +
  `Allowed: ${Object.keys(fields).join(', ')}. Default: \`${fallback}\``;

/**
 * Parses `sort=-created_at,name` against an allow-list; an unknown field is a 400 naming `sort`.
 * `id` is appended as a tie-breaker so pages never overlap.
 */
export function parseSort(sort: string | undefined, fields: SortFields, fallback: string): SortKey[] {
  const keys: SortKey[] = [];
  for (const part of (sort || fallback).split(',')) {
    const name = part.trim().replace(/^-/, '');
    const property = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!property) {
      throw DomainError.validation([
        { field: 'sort', message: `cannot sort by "${name}"; allowed: ${Object.keys(fields).join(', ')}` },
      ]);
    }
    if (!keys.some((key) => key.property === property)) {
      keys.push({ property, direction: part.trim().startsWith('-') ? 'DESC' : 'ASC' });
    }
  }
  if (!keys.some((key) => key.property === 'id')) keys.push({ property: 'id', direction: 'ASC' });
  return keys;
}

/** The same keys as a TypeORM `find({ order })` object. */
export const toFindOrder = (keys: SortKey[]): Record<string, SortDirection> =>
  Object.fromEntries(keys.map((key) => [key.property, key.direction]));

/** The same keys as a query builder's `orderBy` argument for `alias`. */
export const toBuilderOrder = (alias: string, keys: SortKey[]): Record<string, SortDirection> =>
  Object.fromEntries(keys.map((key) => [`${alias}.${key.property}`, key.direction]));
