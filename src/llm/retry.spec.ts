import { ProviderError } from './provider';
import { retryAfterFromHeaders, RetryableProviderError, withRetry, type RetryAttempt } from './retry';

describe(withRetry.name, () => {
  const sleeps: number[] = [];
  const sleep = (ms: number): Promise<void> => {
    sleeps.push(ms);
    return Promise.resolve();
  };

  beforeEach(() => {
    sleeps.length = 0;
  });

  const failing = (...errors: Error[]) => {
    const operation = jest.fn((attempt: number) => {
      const error = errors[attempt];
      return error === undefined ? Promise.resolve('ok') : Promise.reject(error);
    });
    return operation;
  };

  it('should retry retryable failures with full-jitter backoff and report each retry', async () => {
    const operation = failing(
      new RetryableProviderError('provider 500: boom', 500),
      new RetryableProviderError('x', 502),
    );
    const retries: RetryAttempt[] = [];

    const result = await withRetry(operation, {
      sleep,
      random: () => 0.5,
      baseDelayMs: 100,
      onRetry: (r) => retries.push(r),
    });

    expect(result).toBe('ok');
    expect(operation).toHaveBeenCalledTimes(3);
    expect(sleeps).toEqual([50, 100]);
    expect(retries).toEqual([
      { attempt: 1, delayMs: 50, reason: 'provider 500: boom' },
      { attempt: 2, delayMs: 100, reason: 'x' },
    ]);
  });

  it('should grow the jitter ceiling exponentially up to maxDelayMs', async () => {
    const operation = failing(...[1, 2, 3, 4, 5].map(() => new RetryableProviderError('busy', 503)));

    await withRetry(operation, { sleep, random: () => 0.999, baseDelayMs: 100, maxDelayMs: 1_000, maxRetries: 5 });

    expect(sleeps).toEqual([99, 199, 399, 799, 999]);
  });

  it('should wait what Retry-After asked, capped', async () => {
    const operation = failing(
      new RetryableProviderError('429', 429, 2_000),
      new RetryableProviderError('429', 429, 90_000),
    );

    await withRetry(operation, { sleep, maxRetryAfterMs: 30_000 });

    expect(sleeps).toEqual([2_000, 30_000]);
  });

  it('should fail at once on a non-retryable provider error', async () => {
    const error = new ProviderError('provider 401: bad key', 401, false);
    const operation = failing(error);

    await expect(withRetry(operation, { sleep })).rejects.toBe(error);
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('should not retry errors that are not provider errors', async () => {
    const operation = failing(new TypeError('bug'));

    await expect(withRetry(operation, { sleep })).rejects.toThrow('bug');
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('should give up after maxRetries with the last error', async () => {
    const errors = [1, 2, 3].map((n) => new RetryableProviderError(`e${n}`, 503));
    const operation = failing(...errors);

    await expect(withRetry(operation, { sleep, maxRetries: 2 })).rejects.toBe(errors[2]);
    expect(operation).toHaveBeenCalledTimes(3);
  });

  it('should stop during the backoff as soon as the signal aborts, with its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by user');
    const operation = failing(new RetryableProviderError('e', 503, 60_000));
    const waiting = withRetry(operation, {
      signal: controller.signal,
      onRetry: () => controller.abort(reason),
    });

    await expect(waiting).rejects.toBe(reason);
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('should rethrow the abort reason rather than the error the aborted attempt produced', async () => {
    const controller = new AbortController();
    const operation = jest.fn(() => {
      controller.abort();
      return Promise.reject(new RetryableProviderError('connection reset', null));
    });

    await expect(withRetry(operation, { signal: controller.signal, sleep })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(sleeps).toEqual([]);
  });
});

describe(retryAfterFromHeaders.name, () => {
  it('should prefer retry-after-ms, then seconds, then an HTTP date', () => {
    const now = () => Date.parse('2025-01-01T00:00:00Z');

    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3_000);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(retryAfterFromHeaders(new Headers())).toBeNull();
  });
});
