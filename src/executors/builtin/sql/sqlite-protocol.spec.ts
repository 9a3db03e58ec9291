import { isSqliteProcessMessage } from './sqlite-protocol';

describe(isSqliteProcessMessage.name, () => {
  it.each([
    { type: 'ready' },
    { type: 'open-failed', message: 'no such file' },
    { type: 'result', result: { columns: [], rows: [], truncated: false } },
    { type: 'failed', forbidden: false, message: 'SQL error' },
  ])('should accept %j', (message) => {
    expect(isSqliteProcessMessage(message)).toBe(true);
  });

  it.each([null, 'ready', { type: 'other' }, { type: 'failed' }, { type: 'result' }])('should refuse %j', (message) => {
    expect(isSqliteProcessMessage(message)).toBe(false);
  });
});
