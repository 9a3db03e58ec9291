/**
 * How an owner (a user id) reads in a list: the names of the API keys it holds (two keys of one owner: both),
 * its user id when no key name is known, and "shared" for what has no owner (shipped tools).
 */
export function ownerLabel(userId: string | null, keyNames: Record<string, string[]>): string {
  if (userId === null) return 'shared';
  const names = keyNames[userId] ?? [];
  return names.length > 0 ? names.join(', ') : userId;
}
