/**
 * Key placement on the test cluster: the client computes slots as Redis does, a cluster URL reads as
 * written, each queue's keys share one slot and queues land on masters by their names, and the
 * records of many tasks spread over the masters.
 */
import { Cluster } from 'ioredis';
import { KeySpace, parseClusterUrl, queueKeyList } from '@celeriac/redis/internal';
import { keySlot } from '../../src/connection/key-slot';
import { masterFor } from '../../src/connection/redis-client';
import { adminClient, CLUSTER_URL, freshPrefix } from '@celeriac/test-support';

describe('key placement on Redis Cluster', () => {
  let admin: Cluster;
  beforeAll(async () => {
    admin = adminClient(CLUSTER_URL) as Cluster;
    await admin.ping();
  });
  afterAll(() => admin.quit());

  it('computes the slot of a key or its hash tag as Redis does', async () => {
    const keys = [
      'foo',
      'celeriac:{celeriac:default}:ready',
      'a{}b',
      '{user1000}.following',
      'é{x',
      'celeriac:result:1',
    ];
    for (const key of keys) expect(keySlot(key)).toBe(await admin.cluster('KEYSLOT', key));
  });

  it('reads startup nodes and credentials from a cluster URL, and refuses a database other than 0', () => {
    expect(parseClusterUrl('rediss+cluster://app:s%40cret@h1:7000,[::1]:7001,h3')).toEqual({
      nodes: [
        { host: 'h1', port: 7000 },
        { host: '::1', port: 7001 },
        { host: 'h3', port: 6379 },
      ],
      redisOptions: { username: 'app', password: 's@cret', tls: {} },
    });
    expect(() => parseClusterUrl('redis+cluster://h1:7000/2')).toThrow(/database 2; a cluster has only database 0/);
    expect(() => parseClusterUrl('redis+cluster://h1:port')).toThrow(/not host:port/);
    expect(() => parseClusterUrl('redis+cluster://h1:7000,h2:port')).toThrow(/host "h2:port" that is not host:port/);
    expect(() => parseClusterUrl('redis+cluster://')).toThrow(/names no host/);
    // As in every transport URL, the last '@' ends the user info.
    expect(parseClusterUrl('redis+cluster://u:p@w@h1:7000,h2:7001').redisOptions.password).toBe('p@w');
  });

  it("puts one queue's keys on one slot, and queues on the masters by their names", () => {
    const keys = new KeySpace(freshPrefix('cluster-keys'));
    const masters = new Set<string>();
    for (const queue of ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8']) {
      const slots = new Set([...queueKeyList(keys.queue(queue)), ...Object.values(keys.failed(queue))].map(keySlot));
      expect(slots.size).toBe(1);
      const master = masterFor(admin, keys.queue(queue).ready);
      masters.add(`${master?.options.host}:${master?.options.port}`);
    }
    expect(masters.size).toBeGreaterThan(1);
  });

  it('spreads the records of many tasks over every master, and keeps beat on one slot', () => {
    const keys = new KeySpace('celeriac');
    const masters = new Set(
      Array.from({ length: 100 }, (_, i) => {
        const master = masterFor(admin, keys.result(`task-${i}`));
        return `${master?.options.host}:${master?.options.port}`;
      }),
    );
    expect(masters.size).toBe(3);
    expect(new Set([...Object.values(keys.beat), keys.beatChannel].map(keySlot)).size).toBe(1);
    expect(new Set([keys.revoked, keys.revokedInfo, keys.queues, keys.events].map(keySlot)).size).toBe(1);
  });
});
