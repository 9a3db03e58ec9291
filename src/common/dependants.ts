import type { Principal } from './auth/principal';
import { DomainError } from './errors/domain-error';
import { isVisibleTo } from './owned-queries';

/** A stored row that stops working when the one it uses is deleted. */
export interface Dependant {
  kind: 'workflow' | 'tool';
  id: string;
  name: string;
  userId: string | null;
  isPublic: boolean;
}

/**
 * 409 for deleting something others use: names the dependants the caller may see and counts the rest
 * (their names are not the caller's to know).
 */
export function dependantsConflict(what: string, dependants: readonly Dependant[], principal: Principal): DomainError {
  const visible = dependants.filter((dependant) => isVisibleTo(dependant, principal));
  const hidden = dependants.length - visible.length;
  const named = visible.map((dependant) => `${dependant.kind} "${dependant.name}"`);
  if (hidden > 0) named.push(`${hidden} you cannot see`);
  return new DomainError(
    'conflict',
    `${what} is used by ${named.join(', ')}; delete with ?force=true to delete it anyway and disable what uses it`,
    [],
    {
      dependants: visible.map(({ kind, id, name }) => ({ kind, id, name })),
      hidden_dependants: hidden,
    },
  );
}
