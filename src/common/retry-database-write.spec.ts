import { sleepClock } from '../../test/support/sleep-clock';
import { QueryFailedError } from 'typeorm';
import { DatabaseUnavailableError } from './errors/database-unavailable';
import { isDuplicateKey } from './owned-queries';
import { retryDatabaseWrite } from './retry-database-write';

const connectionLost = () => Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
const duplicateKey = () =>
  new QueryFailedError('INSERT', [], Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY' }));

describe(retryDatabaseWrite.name, () => {
  it('should retry while the database is unavailable and return the result once it answers', async () => {
    const clock = sleepClock();
    const write = jest
      .fn<Promise<string>, []>()
      .mockRejectedValueOnce(connectionLost())
      .mockRejectedValueOnce(connectionLost())
      .mockResolvedValue('stored');

    await expect(retryDatabaseWrite(write, { budgetMs: 60_000, ...clock })).resolves.toBe('stored');
    expect(write).toHaveBeenCalledTimes(3);
    expect(clock.slept).toHaveLength(2);
  });

  it('should give up with DatabaseUnavailableError once the budget is spent', async () => {
    const clock = sleepClock();
    const write = jest.fn<Promise<void>, []>().mockRejectedValue(connectionLost());

    const result = retryDatabaseWrite(write, { budgetMs: 10_000, ...clock });

    await expect(result).rejects.toThrow(DatabaseUnavailableError);
    await expect(result).rejects.toThrow('database unavailable for 10000 ms: Connection lost');
    expect(clock.now()).toBe(10_000);
    expect(write.mock.calls.length).toBeGreaterThan(2);
  });

  it('should throw any other error at once', async () => {
    const clock = sleepClock();
    const write = jest.fn<Promise<void>, []>().mockRejectedValue(new Error('syntax error'));

    await expect(retryDatabaseWrite(write, { budgetMs: 10_000, ...clock })).rejects.toThrow('syntax error');
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('should take a duplicate key on a retry as the earlier attempt having gone through', async () => {
    const clock = sleepClock();
    const write = jest
      .fn<Promise<void>, []>()
      .mockRejectedValueOnce(connectionLost())
      .mockRejectedValue(duplicateKey());

    await expect(
      retryDatabaseWrite(write, { budgetMs: 10_000, alreadyDone: isDuplicateKey, ...clock }),
    ).resolves.toBeUndefined();
    expect(write).toHaveBeenCalledTimes(2);
  });
});
