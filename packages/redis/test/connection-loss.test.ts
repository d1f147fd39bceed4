import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { BrokerUnavailableError } from 'celeriac';
import { isCluster, type RedisClient } from '@celeriac/redis';
import { RedisFixture, redisUrlAs, topologyServers } from '@celeriac/test-support';

/** Closes every connection of ACL user `user`, on each master of a cluster; resolves with how many. */
async function killConnectionsOf(admin: RedisClient, user: string): Promise<number> {
  const nodes = isCluster(admin) ? admin.nodes('master') : [admin];
  const killed = await Promise.all(nodes.map((node) => node.client('KILL', 'USER', user)));
  return killed.reduce<number>((sum, count) => sum + Number(count), 0);
}

describe('connection loss', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('conn')));
  afterEach(() => fixture.cleanup());

  it('loses nothing when the worker connections are killed mid-run', async () => {
    // The worker's app connects as a user of its own, so that only its connections are cut (not those
    // of other suites sharing the servers); each server keeps its own users.
    const user = `celeriac-test-conn-${randomBytes(4).toString('hex')}`;
    const servers: Redis[] = topologyServers();
    await Promise.all(
      servers.map((server) => server.acl('SETUSER', user, 'on', '>pass', `~${fixture.prefix}*`, '&*', '+@all')),
    );
    try {
      const workerApp = fixture.app({ broker: redisUrlAs(user, 'pass'), visibilityTimeout: '1s' });
      let runs = 0;
      let killed: Promise<number> | undefined;
      const admin = fixture.redis();
      await admin.ping();
      workerApp.task('conn.work', async (n: number) => {
        runs += 1;
        // Halfway through, cut every connection of the worker's app.
        if (runs === 500) killed = killConnectionsOf(admin, user);
        return n;
      });
      await workerApp.worker({ concurrency: 20 }).start();
      const producer = fixture.app();
      const work = producer.task('conn.work', (n: number) => n);
      const inputs = Array.from({ length: 2_000 }, (_, n) => n);
      const results = work.delayMany(inputs.map((n) => [n] as [number]));
      await expect(Promise.all(results.map((result) => result.get({ timeout: 60_000 })))).resolves.toEqual(inputs);
      expect(await killed).toBeGreaterThan(0);
      await workerApp.close();
    } finally {
      await Promise.all(servers.map((server) => server.acl('DELUSER', user)));
      await Promise.all(servers.map((server) => server.quit()));
    }
  });

  it('rejects delay() with BrokerUnavailableError, after a bounded retry, when Redis is down', async () => {
    const app = fixture.app({ broker: 'redis://127.0.0.1:1/0' });
    const job = app.task('conn.down', () => 1);
    const result = job.delay();
    await expect(result.sent).rejects.toBeInstanceOf(BrokerUnavailableError);
    await expect(result).rejects.toBeInstanceOf(BrokerUnavailableError);
  });

  it('says which broker (password hidden) and why it is unreachable, for sends and reads alike', async () => {
    const app = fixture.app({ broker: 'redis://:hunter2@127.0.0.1:1/0' });
    const result = app.sendTask('conn.down', []);
    const errors = [
      await result.sent.catch((error: unknown) => error),
      await result.state().catch((error: unknown) => error),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(BrokerUnavailableError);
      expect(error).toMatchObject({
        code: 'CELERIAC_BROKER_UNAVAILABLE',
        cause: expect.objectContaining({ code: 'ECONNREFUSED' }),
      });
      expect((error as Error).message).toContain(
        'Redis at redis://:***@127.0.0.1:1/0 is unreachable (connect ECONNREFUSED 127.0.0.1:1)',
      );
      expect((error as Error).message).not.toContain('hunter2');
      expect((error as Error).message).not.toContain('maxRetriesPerRequest');
    }
  });
});
