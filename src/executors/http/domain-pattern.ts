/** Whether `host` matches `pattern`: `example.com` exactly, `*.example.com` any subdomain of it. */
export const matchesDomain = (host: string, pattern: string): boolean => {
  const name = host.toLowerCase().replace(/\.+$/, '');
  const wanted = pattern.toLowerCase().replace(/\.+$/, '');
  return wanted.startsWith('*.') ? name.endsWith(wanted.slice(1)) : name === wanted;
};

/** The reason `host` is refused by the allow/block lists (block wins), or null. */
export const domainRefusal = (
  host: string,
  allowed: readonly string[] = [],
  blocked: readonly string[] = [],
): string | null => {
  const blockedBy = blocked.find((pattern) => matchesDomain(host, pattern));
  if (blockedBy) return `${host} matches blocked domain ${blockedBy}`;
  if (allowed.length > 0 && !allowed.some((pattern) => matchesDomain(host, pattern))) {
    return `${host} is not in the allowed domains (${allowed.join(', ')})`;
  }
  return null;
};
