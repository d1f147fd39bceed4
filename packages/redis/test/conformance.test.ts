import { runBackendConformance, runBrokerConformance } from '@celeriac/core/testing';
import {
  REDIS_BACKEND_CAPABILITIES,
  REDIS_BROKER_CAPABILITIES,
  RedisBackend,
  RedisBroker,
  RedisConnection,
} from '@celeriac/redis';
import { adminClient, deleteKeysUnder, REDIS_URL } from '@celeriac/test-support';

/** Deletes only the keys under one test's prefix. */
async function deletePrefix(prefix: string): Promise<void> {
  const admin = adminClient();
  await deleteKeysUnder(admin, prefix);
  await admin.quit();
}

runBrokerConformance('redis', REDIS_BROKER_CAPABILITIES, async (settings) => {
  const broker = new RedisBroker(new RedisConnection(REDIS_URL), settings);
  const peer = new RedisBroker(new RedisConnection(REDIS_URL), settings);
  return {
    broker,
    peer,
    cleanup: async () => {
      await Promise.allSettled([broker.close(), peer.close()]);
      await deletePrefix(settings.prefix);
    },
  };
});

runBackendConformance('redis', REDIS_BACKEND_CAPABILITIES, async ({ settings, codec }) => {
  const backend = new RedisBackend(new RedisConnection(REDIS_URL), settings, codec);
  const peer = new RedisBackend(
    new RedisConnection(REDIS_URL),
    { ...settings, clientId: `${settings.clientId}-peer` },
    codec,
  );
  return {
    backend,
    peer,
    cleanup: async () => {
      await Promise.allSettled([backend.close(), peer.close()]);
      await deletePrefix(settings.prefix);
    },
  };
});
