/** The factory most broker conformance runs share: a broker and its peer, each of its own connections. */
import type { Broker, BrokerSettings } from 'celeriac';
import type { BrokerFactory } from 'celeriac/testing';
import { adminClient, deleteKeysUnder, REDIS_URL } from './redis-fixture';

/**
 * A conformance factory whose broker and peer `make` builds; after each test both are closed and
 * the Redis keys under the test's prefix (on `redisUrl`) removed.
 */
export function brokerPair(make: (settings: BrokerSettings) => Broker, redisUrl: string = REDIS_URL): BrokerFactory {
  return async (settings) => {
    const broker = make(settings);
    const peer = make(settings);
    return {
      broker,
      peer,
      cleanup: async () => {
        await Promise.allSettled([broker.close(), peer.close()]);
        const admin = adminClient(redisUrl);
        await deleteKeysUnder(admin, settings.prefix);
        await admin.quit();
      },
    };
  };
}
