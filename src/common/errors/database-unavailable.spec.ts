import { QueryFailedError } from 'typeorm';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './database-unavailable';

const driverError = (code: string) => Object.assign(new Error(code), { code });

describe(isDatabaseUnavailable.name, () => {
  it.each(['ECONNREFUSED', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'SQLITE_BUSY'])(
    'should recognise the driver error %s, bare or wrapped by TypeORM',
    (code) => {
      expect(isDatabaseUnavailable(driverError(code))).toBe(true);
      expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], driverError(code)))).toBe(true);
    },
  );

  it('should recognise a write that gave up retrying', () => {
    expect(isDatabaseUnavailable(new DatabaseUnavailableError('database unavailable'))).toBe(true);
  });

  it.each([
    ['a refused query', new QueryFailedError('SELECT x', [], driverError('ER_BAD_FIELD_ERROR'))],
    ['a duplicate key', new QueryFailedError('INSERT', [], driverError('ER_DUP_ENTRY'))],
    ['a plain error', new Error('boom')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
  ])('should not take %s for an outage', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
