import { ToolTimeoutError } from '../../../shared/tool-errors';
import { queryTimeoutError, toJsonRow } from './query-result';

describe(toJsonRow.name, () => {
  it('should turn values JSON cannot carry into readable ones', () => {
    expect(
      toJsonRow({
        blob: Buffer.from([1, 2, 3]),
        small: 42n,
        huge: 2n ** 64n,
        at: new Date('2024-01-02T03:04:05.000Z'),
        text: 'x',
        none: null,
      }),
    ).toEqual({
      blob: '<3 bytes>',
      small: 42,
      huge: '18446744073709551616',
      at: '2024-01-02T03:04:05.000Z',
      text: 'x',
      none: null,
    });
  });
});

describe(queryTimeoutError.name, () => {
  it('should be a timeout that names the limit and its setting', () => {
    const error = queryTimeoutError(1500);

    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect(error.message).toContain('1500 ms time limit (QUERY_TIMEOUT_MS)');
  });
});
