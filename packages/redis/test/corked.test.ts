/**
 * `corked` corks ioredis's socket (`stream`, not part of ioredis's public API) so a batch of commands
 * leaves in one write; where that field is missing or cannot cork, the commands go out uncorked.
 * On Redis Cluster the socket is that of one master's connection: the test's keys share a hash tag,
 * and the tests use the connection to the master serving it.
 */
import { RedisConnection } from '@celeriac/redis';
import { isCluster } from '@celeriac/redis/internal';
import { corkableStream, corked, corkedThroughTick } from '../src/connection/connection';
import { masterFor } from '../src/connection/redis-client';
import type { Redis } from 'ioredis';
import { deleteKeysUnder, freshPrefix, REDIS_URL } from '@celeriac/test-support';

describe('corked', () => {
  const prefix = freshPrefix('corked');
  /** The test's keys: one hash tag, so that on a cluster they all live on one master. */
  const key = (name: string) => `${prefix}:{corked}:${name}`;
  let connection: RedisConnection;
  let client: Redis;

  beforeAll(async () => {
    connection = new RedisConnection(REDIS_URL).retain();
    await connection.client.ping();
    const nodes = connection.client;
    client = isCluster(nodes) ? masterFor(nodes, key('any'))! : nodes;
    expect(client).toBeDefined();
  });

  afterAll(async () => {
    await deleteKeysUnder(client, prefix);
    await connection.release();
  });

  /** The client as `corked` sees it, with its private `stream` replaced (the commands still go through `client`). */
  const withStream = (stream: unknown): Redis => Object.assign(Object.create(client) as Redis, { stream });

  const sendPair = (key: string) => [client.set(key, 'v'), client.get(key)] as const;

  it('corks the socket while the commands are issued, and they all answer', async () => {
    const stream = corkableStream(client);
    expect(stream).toBeDefined();
    const cork = jest.spyOn(stream!, 'cork');
    const uncork = jest.spyOn(stream!, 'uncork');
    const [set, get] = corked(client, () => sendPair(key('a')));
    expect(cork).toHaveBeenCalledTimes(1);
    expect(uncork).toHaveBeenCalledTimes(1);
    await expect(Promise.all([set, get])).resolves.toEqual(['OK', 'v']);
    cork.mockRestore();
    uncork.mockRestore();
  });

  it.each([
    ['no `stream` field', undefined],
    ['a `stream` that cannot cork', { writable: true }],
  ])('with %s, sends the commands uncorked', async (_case, stream) => {
    const disguised = withStream(stream);
    expect(corkableStream(disguised)).toBeUndefined();
    const [set, get] = corked(disguised, () => sendPair(key('b')));
    await expect(Promise.all([set, get])).resolves.toEqual(['OK', 'v']);
  });

  it('corkedThroughTick: a command issued after it returns, in the same tick, leaves in the same write', async () => {
    const stream = corkableStream(client) as unknown as { _write: unknown; _writev: unknown };
    const writes = [jest.spyOn(stream as never, '_write'), jest.spyOn(stream as never, '_writev')];
    const count = () => writes.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
    const set = corkedThroughTick(client, () => client.set(key('c'), 'v'));
    const get = client.get(key('c'));
    expect(count()).toBe(0); // still corked: nothing written yet
    await expect(Promise.all([set, get])).resolves.toEqual(['OK', 'v']);
    expect(count()).toBe(1);
    writes.forEach((spy) => spy.mockRestore());
  });
});
