import { sleepClock } from '../../test/support/sleep-clock';
import { retry, type RetryEvent } from './retry';

const backoff = { baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.999 };
const transient = (message: string) => Object.assign(new Error(message), { transient: true });
const isTransient = (error: unknown) => (error as { transient?: boolean }).transient === true;

interface Answer {
  status: number;
  retryAfterMs: number | null;
}

/** An operation that throws (or returns) the given outcomes in turn, then 'ok'. */
const scripted = <T>(...outcomes: Array<Error | T>) =>
  jest.fn((attempt: number) => {
    const outcome = outcomes[attempt];
    if (outcome instanceof Error) return Promise.reject(outcome);
    return Promise.resolve(outcome === undefined ? ('ok' as T) : outcome);
  });

describe(retry.name, () => {
  it('should retry the errors it is told to with exponential jittered backoff, and report each retry', async () => {
    const clock = sleepClock();
    const events: Array<RetryEvent<string>> = [];
    const first = transient('reset');
    const operation = scripted<string>(first, transient('timeout'));

    const result = await retry(operation, {
      retries: 3,
      retryError: isTransient,
      backoff,
      onRetry: (event) => events.push(event),
      ...clock,
    });

    expect(result).toBe('ok');
    expect(operation.mock.calls.map(([attempt]) => attempt)).toEqual([0, 1, 2]);
    expect(clock.slept).toEqual([99, 199]);
    expect(events[0]).toEqual({ retry: 1, delayMs: 99, failure: { error: first } });
    expect(events.map((event) => event.retry)).toEqual([1, 2]);
  });

  it('should throw an error it is not told to retry at once', async () => {
    const clock = sleepClock();
    const error = new Error('bad request');
    const operation = scripted<string>(error);

    await expect(retry(operation, { retries: 3, retryError: isTransient, backoff, ...clock })).rejects.toBe(error);
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('should throw the last error once the retries are spent', async () => {
    const clock = sleepClock();
    const errors = [1, 2, 3].map((n) => transient(`e${n}`));

    const result = retry(scripted<string>(...errors), { retries: 2, retryError: isTransient, backoff, ...clock });

    await expect(result).rejects.toBe(errors[2]);
    expect(clock.slept).toHaveLength(2);
  });

  it('should retry results that count as failures, wait what the other side asked, and return the last one', async () => {
    const clock = sleepClock();
    const busy: Answer = { status: 503, retryAfterMs: 2_000 };
    const operation = scripted<Answer>(busy, { status: 503, retryAfterMs: null }, busy);

    const result = await retry(operation, {
      retries: 2,
      retryResult: (answer) => answer.status === 503,
      retryAfterMs: (failure) => ('result' in failure ? failure.result.retryAfterMs : null),
      backoff,
      ...clock,
    });

    expect(result).toBe(busy);
    expect(clock.slept).toEqual([2_000, 199]);
  });

  it('should keep retrying for the budget from the first failure, cutting the last wait to what is left', async () => {
    const clock = sleepClock();
    const operation = jest.fn(() => Promise.reject(transient('down')));

    const result = retry(operation, { budgetMs: 1_500, retryError: isTransient, backoff, ...clock });

    await expect(result).rejects.toThrow('down');
    expect(clock.slept).toEqual([99, 199, 399, 799, 4]);
    expect(clock.now()).toBe(1_500);
    expect(operation).toHaveBeenCalledTimes(6);
  });

  it('should not retry an error once the signal aborted, and stop a wait with the signal reason', async () => {
    const controller = new AbortController();
    const error = transient('reset');
    controller.abort(new Error('cancelled'));

    await expect(
      retry(scripted<string>(error), { retries: 3, retryError: isTransient, backoff, signal: controller.signal }),
    ).rejects.toBe(error);

    const waiting = new AbortController();
    const reason = new Error('stopped');
    const stopped = retry(scripted<string>(transient('reset')), {
      retries: 3,
      retryError: isTransient,
      backoff: { ...backoff, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      signal: waiting.signal,
      onRetry: () => waiting.abort(reason),
    });
    await expect(stopped).rejects.toBe(reason);
  });
});
