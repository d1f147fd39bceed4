import { runBrokerConformance } from '@celeriac/core/testing';
import { POSTGRES_BROKER_CAPABILITIES, PostgresBroker, PostgresConnection, schemaName } from '@celeriac/postgres';
import { dropSchema, POSTGRES_URL } from '@celeriac/test-support';

// Two connection sets on one schema: the peer is another process's view (its publishes and
// revocations reach the broker's LISTEN only through the server).
runBrokerConformance('postgres', POSTGRES_BROKER_CAPABILITIES, async (settings) => {
  const broker = new PostgresBroker(new PostgresConnection(POSTGRES_URL, settings.prefix), settings);
  const peer = new PostgresBroker(new PostgresConnection(POSTGRES_URL, settings.prefix), settings);
  return {
    broker,
    peer,
    cleanup: async () => {
      await Promise.allSettled([broker.close(), peer.close()]);
      await dropSchema(schemaName(settings.prefix));
    },
  };
});
