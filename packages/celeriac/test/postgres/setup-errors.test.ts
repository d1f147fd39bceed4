/**
 * A postgres:// URL that names what the server does not have, or a role short of a right: the send
 * fails at once with a typed error saying what to do, and works once it is fixed.
 */
import { randomUUID } from 'node:crypto';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL, withPostgres } from '@celeriac/test-support';
import { Celeriac } from 'celeriac';

const apps: Celeriac[] = [];
afterEach(async () => {
  await Promise.allSettled(apps.splice(0).map((app) => app.close()));
});

/** Sends one task on `url` and returns what the send ended with. */
async function sendOn(url: string, prefix = freshPostgresPrefix('setup')): Promise<unknown> {
  const app = new Celeriac({ broker: url, prefix });
  apps.push(app);
  return app.sendTask('setup.probe', []).sent.then(
    () => 'sent',
    (error: unknown) => error,
  );
}

/** `POSTGRES_URL` with another user or database. */
function urlWith(change: (url: URL) => void): string {
  const url = new URL(POSTGRES_URL);
  change(url);
  return url.toString();
}

describe('postgres:// setup errors', () => {
  it('name a database that does not exist, and say to create it', async () => {
    const url = urlWith((target) => (target.pathname = `/celeriac_missing_${randomUUID().slice(0, 8)}`));
    await expect(sendOn(url)).resolves.toMatchObject({
      code: 'CELERIAC_BROKER_UNAVAILABLE',
      message: expect.stringMatching(/does not exist\)\. Create the database/),
    });
  });

  it('name a role that does not exist, and say to create it', async () => {
    const url = urlWith((target) => (target.username = `celeriac_nobody_${randomUUID().slice(0, 8)}`));
    await expect(sendOn(url)).resolves.toMatchObject({
      code: 'CELERIAC_BROKER_UNAVAILABLE',
      message: expect.stringMatching(/does not exist\)\. Create the role/),
    });
  });

  it('say which right a role lacks to make its schema, and work once it is granted', async () => {
    const role = `celeriac_noright_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
    const database = new URL(POSTGRES_URL).pathname.slice(1);
    const prefix = freshPostgresPrefix('setup');
    await withPostgres((client) => client.query(`CREATE ROLE ${role} LOGIN`));
    try {
      const url = urlWith((target) => (target.username = role));
      await expect(sendOn(url, prefix)).resolves.toMatchObject({
        code: 'CELERIAC_NO_PERMISSION',
        message: expect.stringContaining('GRANT CREATE ON DATABASE'),
      });
      await withPostgres((client) => client.query(`GRANT CREATE ON DATABASE ${database} TO ${role}`));
      await expect(sendOn(url, prefix)).resolves.toBe('sent');
    } finally {
      await Promise.allSettled(apps.splice(0).map((app) => app.close()));
      await dropSchema(prefix);
      await withPostgres(async (client) => {
        await client.query(`REVOKE CREATE ON DATABASE ${database} FROM ${role}`);
        await client.query(`DROP ROLE ${role}`);
      });
    }
  });
});
