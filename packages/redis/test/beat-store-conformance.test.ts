import { runBeatStoreConformance } from '@celeriac/core/testing';
import { RedisBeatStore, RedisConnection } from '@celeriac/redis';
import { adminClient, deleteKeysUnder, REDIS_URL } from '@celeriac/test-support';

runBeatStoreConformance('redis', async (prefix) => {
  const store = new RedisBeatStore(new RedisConnection(REDIS_URL), prefix);
  const peer = new RedisBeatStore(new RedisConnection(REDIS_URL), prefix);
  return {
    store,
    peer,
    cleanup: async () => {
      await Promise.allSettled([store.close(), peer.close()]);
      const admin = adminClient();
      await deleteKeysUnder(admin, prefix);
      await admin.quit();
    },
  };
});
