/**
 * An ioredis client made by the user as the app's broker, backend and beat store: a `Cluster` on the
 * local test cluster and a `Redis` on the single test Redis. The app runs tasks through it and closes
 * the connections it duplicated from it, and leaves the client itself open for its owner.
 */
import { randomBytes } from 'node:crypto';
import { Celeriac, CeleriacError, every } from 'celeriac';
import { type RedisClient } from '@celeriac/redis';
import { parseClusterUrl } from '@celeriac/redis/internal';
import { adminClient, CLUSTER_URL, deleteKeysUnder, freshPrefix } from '@celeriac/test-support';
import { Cluster, Redis } from 'ioredis';

const SINGLE_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** How to make a user's client with a connection name, and a client that inspects the same servers. */
interface Topology {
  name: string;
  client(connectionName: string, extra?: { keyPrefix?: string }): RedisClient;
  admin(): RedisClient;
}

const topologies: Topology[] = [
  {
    name: 'an ioredis Cluster',
    client: (connectionName, extra = {}) =>
      new Cluster(parseClusterUrl(CLUSTER_URL).nodes, { redisOptions: { connectionName }, ...extra }),
    admin: () => adminClient(CLUSTER_URL),
  },
  {
    name: 'an ioredis Redis',
    client: (connectionName, extra = {}) => new Redis(SINGLE_URL, { connectionName, ...extra }),
    admin: () => adminClient(SINGLE_URL),
  },
];

/** The connections named `name` on every node `admin` reaches. */
async function namedConnections(admin: RedisClient, name: string): Promise<number> {
  await admin.ping();
  const nodes = admin instanceof Cluster ? admin.nodes('all') : [admin];
  const lists = await Promise.all(nodes.map((node) => node.client('LIST') as Promise<string>));
  return lists.flatMap((list) => list.split('\n')).filter((line) => line.includes(` name=${name} `)).length;
}

/** The connections the client itself holds open. */
function ownConnections(client: RedisClient): number {
  return client instanceof Cluster ? client.nodes('all').filter((node) => node.status === 'ready').length : 1;
}

/** Resolves once `check` holds, checking after each reply; fails after `ms` with `what`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
  }
}

describe.each(topologies)('$name as broker, backend and beat store', (topology) => {
  let admin: RedisClient;
  let prefix: string;

  beforeEach(() => {
    admin = topology.admin();
    prefix = freshPrefix('given-client');
  });

  afterEach(async () => {
    await deleteKeysUnder(admin, prefix);
    await admin.quit();
  });

  it('runs tasks on several queues and keeps beat entries through it; close leaves the client open', async () => {
    const name = `given-${randomBytes(4).toString('hex')}`;
    const client = topology.client(name);
    const listeners = () => client.eventNames().map((event) => [event, client.listenerCount(event)]);
    // Taken once connected: ioredis adds listeners of its own while connecting.
    await client.ping();
    const listenersBefore = listeners();
    try {
      const app = new Celeriac({ broker: client, prefix });
      const add = app.task('given.add', (a: number, b: number) => a + b);
      const queues = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5'];
      await app.worker({ queues, concurrency: 8, pool: 'inline' }).start();
      const results = queues.flatMap((queue) =>
        Array.from({ length: 20 }, (_, i) => add.applyAsync([i, 1], { queue })),
      );
      const values = await Promise.all(results.map((result) => result.get({ timeout: 20_000 })));
      expect(values).toEqual(queues.flatMap(() => Array.from({ length: 20 }, (_, i) => i + 1)));
      // The backend is the broker's client too: records are read back through it.
      const records = await app.backend.getMany(results.map((result) => result.id));
      expect(records.every((record) => record?.state === 'SUCCESS')).toBe(true);
      // Beat's store is on the same client.
      await app.beat.add('given.tick', { task: add, schedule: every('1h'), args: [1, 2] });
      expect((await app.beat.list()).map((entry) => entry.name)).toContain('given.tick');
      // The worker's waits and the result notices run on duplicates of the client.
      expect(await namedConnections(admin, name)).toBeGreaterThan(ownConnections(client));

      await app.close();
      expect(client.status).toBe('ready');
      await expect(client.ping()).resolves.toBe('PONG');
      expect(listeners()).toEqual(listenersBefore);
      await until(
        async () => (await namedConnections(admin, name)) === ownConnections(client),
        10_000,
        'the duplicates are closed',
      );
    } finally {
      await client.quit();
    }
  });

  it('refuses a client with a keyPrefix, naming the prefix option', async () => {
    const client = topology.client('given-prefixed', { keyPrefix: 'x:' });
    try {
      const app = new Celeriac({ broker: client, prefix });
      let error: unknown;
      try {
        void app.broker;
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(CeleriacError);
      expect((error as CeleriacError).code).toBe('CELERIAC_INVALID_OPTION');
      expect((error as CeleriacError).message).toMatch(/keyPrefix.*prefix option/);
      await app.close();
    } finally {
      await client.quit();
    }
  });
});
