/** A broker whose server cannot be reached fails with BrokerUnavailableError, naming what failed and where. */
import { PostgresBroker, PostgresConnection } from '@celeriac/postgres';

describe('the PostgreSQL broker without a server', () => {
  it('rejects a publish with CELERIAC_BROKER_UNAVAILABLE naming the action and the URL (no password)', async () => {
    // A port nothing listens on (the discard port): the connection is refused at once.
    const connection = new PostgresConnection('postgres://app:secret@127.0.0.1:9/app', 'unreachable');
    const broker = new PostgresBroker(connection, {
      prefix: 'unreachable',
      visibilityTimeout: 30_000,
      maxDeliveries: 5,
      revokeTtl: 60_000,
    });
    try {
      const publishing = broker.publish([{ id: 'a', queue: 'q', priority: 0, idempotent: false, body: 'x' }]);
      await expect(publishing).rejects.toMatchObject({ code: 'CELERIAC_BROKER_UNAVAILABLE' });
      const error = (await publishing.catch((caught: unknown) => caught)) as Error;
      expect(error.message).toMatch(
        /Could not publish tasks: PostgreSQL at postgres:\/\/app:\*\*\*@127\.0\.0\.1:9\/app/,
      );
      expect(error.message).not.toContain('secret');
    } finally {
      await broker.close();
    }
  });
});
