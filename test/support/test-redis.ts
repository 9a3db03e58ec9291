import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The Redis of the queue-mode tests (TEST_REDIS_URL, started by scripts/test-redis.sh). Without it the
 * queue-mode tests skip locally; under CI=true a missing Redis fails them instead of skipping silently.
 */
export function testRedisUrl(): string | null {
  const url = process.env.TEST_REDIS_URL;
  if (url) return url;
  if (process.env.CI === 'true') {
    throw new Error(
      'CI=true but TEST_REDIS_URL is unset: the queue-mode tests need Redis (scripts/test-redis.sh start)',
    );
  }
  return null;
}

/** `describe` when a test Redis is configured, `describe.skip` otherwise (throws under CI=true). */
export const describeWithRedis = (): jest.Describe => (testRedisUrl() ? describe : describe.skip);

/** A key prefix of its own per test, so tests sharing one Redis never see each other's queues or channels. */
export const uniqueRedisPrefix = (): string => `tf-test-${randomBytes(4).toString('hex')}`;

/** Deletes every key under `prefix`. */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
