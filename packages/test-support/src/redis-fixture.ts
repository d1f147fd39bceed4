/**
 * Test fixtures for the Redis package: apps under a random key prefix per test, removed afterwards
 * (only their own keys, found by SCAN on the prefix), and a helper to wait until a time has passed.
 * `CELERIAC_REDIS_TOPOLOGY=cluster` points every test at the local test cluster (redis-cluster.ts).
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { isClusterUrl, parseClusterUrl, type RedisClient } from '@celeriac/redis';
import { Celeriac, type CeleriacOptions } from 'celeriac';
import { CLUSTER_URL } from './redis-cluster';

/** The Redis topology the tests run on, from `CELERIAC_REDIS_TOPOLOGY`: `single` (default) or `cluster`. */
export function redisTopology(): 'single' | 'cluster' {
  const value = process.env.CELERIAC_REDIS_TOPOLOGY ?? 'single';
  if (value !== 'single' && value !== 'cluster') {
    throw new Error(`CELERIAC_REDIS_TOPOLOGY is ${value}; set it to single or cluster.`);
  }
  return value;
}

/** The Redis the tests use: `REDIS_URL`, else the test cluster or the local Redis by topology. */
export const REDIS_URL =
  process.env.REDIS_URL ?? (redisTopology() === 'cluster' ? CLUSTER_URL : 'redis://127.0.0.1:6379/0');

/** A plain client of `url` (by default the tests' Redis), for inspecting and deleting keys. */
export function adminClient(url: string = REDIS_URL): RedisClient {
  if (!isClusterUrl(url)) return new Redis(url);
  const { nodes, redisOptions } = parseClusterUrl(url);
  return new Cluster(nodes, { redisOptions });
}

/** A fresh key prefix for one test. */
export function freshPrefix(label: string): string {
  return `celeriac-test:${label}:${randomBytes(4).toString('hex')}`;
}

/** Creates apps on one prefix and, on `cleanup()`, closes them and deletes the prefix's keys. */
export class RedisFixture {
  readonly prefix: string;
  private readonly apps: Celeriac[] = [];
  private admin: RedisClient | undefined;

  constructor(label: string) {
    this.prefix = freshPrefix(label);
  }

  /** A new app on this fixture's prefix (each app has its own connections, like a separate process). */
  app(options: CeleriacOptions = {}): Celeriac {
    const app = new Celeriac({ broker: REDIS_URL, prefix: this.prefix, ...options });
    this.apps.push(app);
    return app;
  }

  /** A plain client for inspecting keys. */
  redis(): RedisClient {
    this.admin ??= adminClient();
    return this.admin;
  }

  /** Closes every app and removes every key under the prefix. */
  async cleanup(): Promise<void> {
    await Promise.all(this.apps.map((app) => app.close()));
    await deleteKeysUnder(this.redis(), this.prefix);
    await this.redis().quit();
  }
}

/** Deletes the keys whose names start with `prefix` (found with SCAN on every master), and nothing else. */
export async function deleteKeysUnder(redis: RedisClient, prefix: string): Promise<void> {
  // A cluster client knows its masters once connected.
  if (redis instanceof Cluster && redis.status !== 'ready') await redis.ping();
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      // One key a call: a node may hold keys of many slots, and UNLINK of several must share one.
      await Promise.all(keys.map((key) => node.unlink(key)));
    } while (cursor !== '0');
  }
}

/** Resolves once the clock has passed `time` (epoch ms): waiting for a deadline, e.g. a lease. */
export function untilAfter(time: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (Date.now() > time ? resolve() : setTimeout(check, time - Date.now() + 1));
    check();
  });
}
