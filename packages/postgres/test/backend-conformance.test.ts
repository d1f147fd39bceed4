import { runBackendConformance } from '@celeriac/core/testing';
import { POSTGRES_BACKEND_CAPABILITIES, PostgresBackend, PostgresConnection } from '@celeriac/postgres';
import { dropSchema, POSTGRES_URL } from '@celeriac/test-support';

runBackendConformance('postgres', POSTGRES_BACKEND_CAPABILITIES, async ({ settings, codec }) => {
  // Two connection sets, as two processes have: notices reach the backend from the peer's session.
  const backend = new PostgresBackend(new PostgresConnection(POSTGRES_URL, settings.prefix), settings, codec);
  const peer = new PostgresBackend(
    new PostgresConnection(POSTGRES_URL, settings.prefix),
    { ...settings, clientId: `${settings.clientId}-peer` },
    codec,
  );
  return {
    backend,
    peer,
    cleanup: async () => {
      await Promise.allSettled([backend.close(), peer.close()]);
      await dropSchema(new PostgresConnection(POSTGRES_URL, settings.prefix).schema);
    },
  };
});
