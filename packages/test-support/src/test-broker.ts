/**
 * The broker the behaviour suite (packages/celeriac/test) runs on, chosen by one variable:
 * `CELERIAC_TEST_BROKER=memory` (the default), `redis` (the Redis at `REDIS_URL`, a fresh key
 * prefix per test, its keys deleted afterwards), `postgres` (the PostgreSQL at `POSTGRES_URL`, a
 * fresh schema per test, dropped afterwards, with the results in Redis under the same prefix) or
 * `rabbitmq` (RabbitMQ in the vhost `CELERIAC_TEST_VHOST` the project's global setup made, under a
 * fresh prefix, with the backend and shared state on that Redis).
 */
import { dropSchema, freshPostgresPrefix, POSTGRES_URL } from './postgres-fixture';
import { RABBITMQ_BASE_URL } from './rabbitmq-fixture';
import { adminClient, deleteKeysUnder, freshPrefix, REDIS_URL } from './redis-fixture';

/** What `CELERIAC_TEST_BROKER` may name. */
export type TestBroker = 'memory' | 'redis' | 'postgres' | 'rabbitmq';

/** The broker named by `CELERIAC_TEST_BROKER`; throws on anything but `memory`, `redis`, `postgres` or `rabbitmq`. */
export function testBroker(): TestBroker {
  const value = process.env.CELERIAC_TEST_BROKER ?? 'memory';
  if (value !== 'memory' && value !== 'redis' && value !== 'postgres' && value !== 'rabbitmq') {
    throw new Error(`CELERIAC_TEST_BROKER is ${value}; set it to memory, redis, postgres or rabbitmq.`);
  }
  return value;
}

/** The app options of one test on the chosen broker, and how to remove what the test left behind. */
export interface TestBrokerPlace {
  readonly options: { broker: string; backend?: string; prefix?: string };
  cleanup(): Promise<void>;
}

/** A place for one test's app: `memory://`, Redis under a fresh prefix, PostgreSQL in a fresh schema, or RabbitMQ. */
export function testBrokerPlace(label: string): TestBrokerPlace {
  const broker = testBroker();
  if (broker === 'memory') return { options: { broker: 'memory://' }, cleanup: () => Promise.resolve() };
  const prefix = broker === 'postgres' ? freshPostgresPrefix(label) : freshPrefix(label);
  return {
    options:
      broker === 'postgres'
        ? { broker: POSTGRES_URL, backend: REDIS_URL, prefix }
        : broker === 'rabbitmq'
          ? { broker: rabbitmqUrl(), backend: REDIS_URL, prefix }
          : { broker: REDIS_URL, prefix },
    async cleanup() {
      const admin = adminClient();
      try {
        await deleteKeysUnder(admin, prefix);
      } finally {
        await admin.quit();
      }
      // The schema is named from the prefix (lower case; the fresh prefix has nothing to replace).
      if (broker === 'postgres') await dropSchema(prefix.toLowerCase());
    },
  };
}

/** The vhost of the run's RabbitMQ behaviour project (its queues go with it at the end of the run). */
function rabbitmqUrl(): string {
  const vhost = process.env.CELERIAC_TEST_VHOST;
  if (vhost === undefined) throw new Error('CELERIAC_TEST_VHOST is not set: run the "behaviour on rabbitmq" project.');
  return `${RABBITMQ_BASE_URL}/${encodeURIComponent(vhost)}`;
}
