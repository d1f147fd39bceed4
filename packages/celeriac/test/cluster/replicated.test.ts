/**
 * `durability: 'replicated'` on Redis Cluster: a cluster client writes through one connection per
 * master, and a send resolves only once the replica of its queue's master holds the task; a worker
 * with the option stores and acks through the same waits.
 */
import { KeySpace } from '@celeriac/redis/internal';
import { Redis } from 'ioredis';
import { CLUSTER_URL, masterHolding, RedisFixture, replicaAddresses } from '@celeriac/test-support';

describe("durability: 'replicated' on Redis Cluster", () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('cluster-replicated', CLUSTER_URL)));
  afterEach(() => fixture.cleanup());

  it("puts a sent task on its master's replica before the send resolves, and runs it", async () => {
    const echo = fixture.app({ durability: 'replicated' }).task('replicated.echo', (text: string) => text);
    const result = echo.delay('kept');
    await result.sent;
    const messages = new KeySpace(fixture.prefix).queue('default').messages;
    const [address] = await replicaAddresses(await masterHolding(fixture.redis(), messages));
    const replica = new Redis(address!);
    try {
      // A replica serves reads of its master's slots to a connection that asked for it.
      await replica.readonly();
      expect(await replica.hexists(messages, result.id)).toBe(1);
    } finally {
      replica.disconnect();
    }
    const workerApp = fixture.app({ durability: 'replicated' });
    workerApp.task('replicated.echo', (text: string) => text);
    await workerApp.worker().start();
    await expect(result).resolves.toBe('kept');
  });
});
