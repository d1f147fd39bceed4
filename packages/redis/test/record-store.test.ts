/**
 * How the Redis backend writes records: one SET for a lone record, one script call for a batch
 * (which a worker settling many tasks at once sends), each record under its own key with its TTL.
 */
import { Codec, type StoreEntry } from '@celeriac/core';
import { RedisBackend, RedisConnection, type RedisClient } from '@celeriac/redis';
import { adminClient, deleteKeysUnder, freshPrefix, REDIS_URL } from '@celeriac/test-support';

describe('RedisBackend.store', () => {
  const prefix = freshPrefix('record-store');
  let backend: RedisBackend;
  let admin: RedisClient;

  beforeAll(() => {
    backend = new RedisBackend(new RedisConnection(REDIS_URL), { prefix, clientId: 'record-store' }, new Codec());
    admin = adminClient();
  });

  afterAll(async () => {
    await backend.close();
    await deleteKeysUnder(admin, prefix);
    await admin.quit();
  });

  const entry = (id: string, result: unknown, ttl: number): StoreEntry => ({
    record: { id, state: 'SUCCESS', task: 't', result, date: Date.now() },
    ttl,
  });

  it('stores a batch of records, each readable under its own key with its own TTL', async () => {
    const entries = [entry('a', 1, 60_000), entry('b', { nested: [2] }, 120_000), entry('c', 'three', 180_000)];
    await backend.store(entries);
    await expect(backend.getMany(['a', 'b', 'c'])).resolves.toEqual(entries.map((stored) => stored.record));
    const ttls = await Promise.all(['a', 'b', 'c'].map((id) => admin.pttl(`${prefix}:result:${id}`)));
    ttls.forEach((ttl, index) => {
      const wanted = (entries[index] as StoreEntry).ttl;
      expect(ttl).toBeGreaterThan(wanted - 10_000);
      expect(ttl).toBeLessThanOrEqual(wanted);
    });
  });

  it('stores a lone record, and keeps the last record of a task stored twice in one batch', async () => {
    await backend.store([entry('d', 4, 60_000)]);
    await backend.store([entry('e', 'first', 60_000), entry('e', 'second', 60_000), entry('f', 6, 60_000)]);
    await expect(backend.getMany(['d', 'e', 'f'])).resolves.toMatchObject([
      { result: 4 },
      { result: 'second' },
      { result: 6 },
    ]);
  });
});
