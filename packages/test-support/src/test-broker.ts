/**
 * The broker the behaviour suite (packages/celeriac/test) runs on, chosen by one variable:
 * `CELERIAC_TEST_BROKER=memory` (the default) or `redis` (the Redis at `REDIS_URL`, a fresh key
 * prefix per test, its keys deleted afterwards).
 */
import { adminClient, deleteKeysUnder, freshPrefix, REDIS_URL } from './redis-fixture';

/** What `CELERIAC_TEST_BROKER` may name. */
export type TestBroker = 'memory' | 'redis';

/** The broker named by `CELERIAC_TEST_BROKER`; throws on anything but `memory` or `redis`. */
export function testBroker(): TestBroker {
  const value = process.env.CELERIAC_TEST_BROKER ?? 'memory';
  if (value !== 'memory' && value !== 'redis') {
    throw new Error(`CELERIAC_TEST_BROKER is ${value}; set it to memory or redis.`);
  }
  return value;
}

/** The app options of one test on the chosen broker, and how to remove what the test left in Redis. */
export interface TestBrokerPlace {
  readonly options: { broker: string; prefix?: string };
  cleanup(): Promise<void>;
}

/** A place for one test's app: `memory://`, or Redis under a fresh prefix. */
export function testBrokerPlace(label: string): TestBrokerPlace {
  if (testBroker() === 'memory') return { options: { broker: 'memory://' }, cleanup: () => Promise.resolve() };
  const prefix = freshPrefix(label);
  return {
    options: { broker: REDIS_URL, prefix },
    async cleanup() {
      const admin = adminClient();
      try {
        await deleteKeysUnder(admin, prefix);
      } finally {
        await admin.quit();
      }
    },
  };
}
