/**
 * Words that tool descriptions and questions use for the same thing. Kept small and generic: each group is
 * an alias set a user might say for a verb or object that tools describe in other words.
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['get', 'fetch', 'retrieve', 'obtain', 'lookup', 'show', 'display', 'view', 'read', 'return'],
  ['list', 'enumerate', 'browse'],
  ['search', 'find', 'query', 'lookup', 'locate'],
  ['create', 'add', 'new', 'make', 'insert', 'generate', 'open', 'register'],
  ['delete', 'remove', 'erase', 'destroy', 'drop', 'purge'],
  ['update', 'modify', 'change', 'edit', 'patch', 'rename', 'set', 'replace'],
  ['send', 'deliver', 'dispatch', 'post', 'share'],
  ['email', 'mail', 'gmail', 'inbox', 'message'],
  ['weather', 'forecast', 'temperature', 'rain', 'climate'],
  ['stock', 'share', 'ticker', 'equity', 'market'],
  ['price', 'cost', 'quote', 'rate', 'fee'],
  ['translate', 'translation', 'language'],
  ['meeting', 'calendar', 'event', 'schedule', 'appointment'],
  ['file', 'document', 'doc', 'attachment'],
  ['user', 'account', 'profile', 'member', 'person'],
  ['image', 'photo', 'picture'],
  ['video', 'clip', 'movie'],
  ['spreadsheet', 'sheet', 'cell', 'row'],
  ['payment', 'pay', 'charge', 'billing', 'invoice'],
  ['ticket', 'incident', 'issue', 'case'],
  ['cancel', 'abort', 'stop', 'terminate'],
  ['start', 'begin', 'launch', 'run', 'execute'],
  ['count', 'number', 'total'],
  ['customer', 'client', 'consumer'],
];
