import type { TakenNames } from '../common/owned-queries';
import type { ConflictPolicy, ImportStatus } from './bundle.dto';

export interface NameDecision {
  status: ImportStatus;
  /** The name the item gets (null when the bundle gave none: the item's check reports it). */
  name: string | null;
  /** Set when renamed: the name in the bundle. */
  originalName?: string;
  /** skipped: the existing item kept; replaced: the caller's item that gets the next version. */
  targetId: string | null;
  reason?: string;
}

export interface NameContext {
  taken: TakenNames;
  /** Names earlier items of the same bundle list took. */
  inBundle: ReadonlySet<string>;
  /** Every name the bundle list has: a new name never takes one a later item brings. */
  allNames: ReadonlySet<string>;
  policy: ConflictPolicy;
  kind: 'tool' | 'workflow';
  maxLength: number;
}

/**
 * What an import does with one item's name: create it when free; else by the policy keep the existing one
 * (skip), take the first free `name_2`, `name_3`, … (rename) or store the item as the next version of the
 * caller's own one (replace). Names are per owner; a public item also clashes with public names.
 */
export function decideName(name: unknown, isPublic: boolean, context: NameContext): NameDecision {
  if (typeof name !== 'string') return { status: 'created', name: null, targetId: null };
  const { taken, inBundle, policy, kind } = context;
  const own = taken.own.get(name);
  const publicOne = isPublic ? taken.public.get(name) : undefined;
  const twice = inBundle.has(name);
  if (own === undefined && publicOne === undefined && !twice) return { status: 'created', name, targetId: null };
  const why = twice
    ? `an earlier ${kind} of the bundle is named "${name}"`
    : own !== undefined
      ? `you already have a ${kind} named "${name}"`
      : `a public ${kind} is named "${name}"`;
  if (policy === 'rename') {
    const free = freeName(name, context);
    return {
      status: 'renamed',
      name: free,
      originalName: name,
      targetId: null,
      reason: `${why}; imported as "${free}"`,
    };
  }
  if (twice) return { status: 'failed', name, targetId: null, reason: why };
  if (policy === 'skip') return { status: 'skipped', name, targetId: own ?? publicOne ?? null, reason: why };
  if (own === undefined) {
    return { status: 'failed', name, targetId: null, reason: `${why} and is not yours to replace; use rename or skip` };
  }
  return { status: 'replaced', name, targetId: own, reason: `${why}; it gets the bundle's as its next version` };
}

function freeName(name: string, { taken, inBundle, allNames, maxLength }: NameContext): string {
  for (let counter = 2; ; counter += 1) {
    const suffix = `_${counter}`;
    const candidate = `${name.slice(0, maxLength - suffix.length)}${suffix}`;
    const used = taken.own.has(candidate) || taken.public.has(candidate);
    if (!used && !inBundle.has(candidate) && !allNames.has(candidate)) return candidate;
  }
}
