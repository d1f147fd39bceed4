import { runBeatStoreConformance } from '@celeriac/core/testing';
import { PostgresBeatStore, PostgresConnection } from '@celeriac/postgres';
import { dropSchema, POSTGRES_URL } from '@celeriac/test-support';

runBeatStoreConformance('postgres', async (prefix) => {
  // Two connection sets, as two schedulers in two processes have.
  const store = new PostgresBeatStore(new PostgresConnection(POSTGRES_URL, prefix));
  const peer = new PostgresBeatStore(new PostgresConnection(POSTGRES_URL, prefix));
  return {
    store,
    peer,
    cleanup: async () => {
      await Promise.allSettled([store.close(), peer.close()]);
      await dropSchema(new PostgresConnection(POSTGRES_URL, prefix).schema);
    },
  };
});
