import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { waitFor } from '../../test/support/wait-for';
import { RunRedis } from './run-redis';

const redisUrl = process.env.TEST_REDIS_URL;

(redisUrl ? describe : describe.skip)(`${RunRedis.name} (TEST_REDIS_URL)`, () => {
  let sut: RunRedis;

  beforeEach(() => {
    sut = new RunRedis(redisUrl!, `tf-test-${randomUUID()}`);
  });

  afterEach(() => sut.close());

  it('should resolve a second listener of a channel only once Redis confirmed the first one’s subscription', async () => {
    const subscriber = (sut as unknown as { subscriber: Redis }).subscriber;
    let confirm: () => void = () => undefined;
    const subscribe = subscriber.subscribe.bind(subscriber);
    jest.spyOn(subscriber, 'subscribe').mockImplementationOnce((...channels: unknown[]) => {
      const sent = subscribe(...(channels as string[]));
      return new Promise((resolve) => (confirm = () => resolve(sent)));
    });
    const channel = sut.channel('events');
    const order: string[] = [];

    const first = sut.listen(channel, () => undefined).then(() => order.push('first'));
    const second = sut.listen(channel, () => undefined).then(() => order.push('second'));
    await new Promise((resolve) => setImmediate(resolve));
    order.push('confirmed');
    confirm();
    await Promise.all([first, second]);

    expect(order).toEqual(['confirmed', 'first', 'second']);
    expect(subscriber.subscribe).toHaveBeenCalledTimes(1);
  });

  it('should tell once its subscription is back after its connection was lost, not at its first connection', async () => {
    const subscriber = (sut as unknown as { subscriber: Redis }).subscriber;
    const channel = sut.channel('events');
    const stop = await sut.listen(channel, () => undefined);
    let told = 0;
    sut.onResubscribed(() => (told += 1));
    expect(told).toBe(0);

    subscriber.disconnect(true);

    await waitFor(() => told === 1, { what: 'the resubscription was told' });
    stop();
  });

  it('should deliver a message published after listen resolved to every listener, and none after they stopped', async () => {
    const channel = sut.channel('events');
    const got: string[] = [];
    const stopA = await sut.listen(channel, (message) => got.push(`a:${message}`));
    const stopB = await sut.listen(channel, (message) => got.push(`b:${message}`));

    await sut.commands.publish(channel, 'one');
    await waitFor(() => got.length === 2, { what: 'both listeners got the message' });
    stopA();
    stopB();
    // A later listener hears 'two' in the same dispatch the stopped ones would have: once it has, they did not.
    const stopC = await sut.listen(channel, (message) => got.push(`c:${message}`));
    await sut.commands.publish(channel, 'two');
    await waitFor(() => got.includes('c:two'), { what: 'the later listener got the message' });
    stopC();

    expect(got.sort()).toEqual(['a:one', 'b:one', 'c:two']);
  });
});
