/**
 * Test fixtures for the Redis package: apps under a random key prefix per test, removed afterwards
 * (only their own keys, found by SCAN on the prefix), and a helper to wait until a time has passed.
 * `CELERIAC_REDIS_TOPOLOGY` points every test at the local test cluster or Sentinel setup.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { type RedisClient } from '@celeriac/redis';
import { isClusterUrl, isSentinelUrl, parseClusterUrl, scanKeys, sentinelOptions } from '@celeriac/redis/internal';
import { Celeriac, type CeleriacOptions } from 'celeriac';
import { CLUSTER_URL } from './redis-cluster';
import { SENTINEL_URL } from './sentinel-servers';

/** A Redis topology the tests can run on. */
export type RedisTopology = 'single' | 'cluster' | 'sentinel';

/** The Redis topology the tests run on, from `CELERIAC_REDIS_TOPOLOGY`: `single` (default), `cluster` or `sentinel`. */
export function redisTopology(): RedisTopology {
  const value = process.env.CELERIAC_REDIS_TOPOLOGY ?? 'single';
  if (value !== 'single' && value !== 'cluster' && value !== 'sentinel') {
    throw new Error(`CELERIAC_REDIS_TOPOLOGY is ${value}; set it to single, cluster or sentinel.`);
  }
  return value;
}

/**
 * The Redis the tests use: the test cluster (redis-cluster.ts) or the test Sentinel setup
 * (sentinel-servers.ts) by topology; on `single`, `REDIS_URL`, by default the Redis on 6379.
 */
export const REDIS_URL = {
  cluster: CLUSTER_URL,
  sentinel: SENTINEL_URL,
  single: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
}[redisTopology()];

/**
 * The Redis the Celery interop tests use: the tests' topology, except on `cluster`, where Python
 * Celery cannot run (kombu has no Redis Cluster transport, so Celeriac refuses `protocol: 'celery'`
 * there too): the single node (`REDIS_URL`, by default the Redis on 6379).
 */
export const CELERY_REDIS_URL =
  redisTopology() === 'cluster' ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0') : REDIS_URL;

/** A plain client of `url` (by default the tests' Redis), for inspecting and deleting keys. */
export function adminClient(url: string = REDIS_URL): RedisClient {
  if (isSentinelUrl(url)) return new Redis(sentinelOptions(url));
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

  /** @param url the Redis the apps use (`REDIS_URL` unless given). */
  constructor(
    label: string,
    readonly url: string = REDIS_URL,
  ) {
    this.prefix = freshPrefix(label);
  }

  /** A new app on this fixture's prefix (each app has its own connections, like a separate process). */
  app(options: CeleriacOptions = {}): Celeriac {
    const app = new Celeriac({ broker: this.url, prefix: this.prefix, ...options });
    this.apps.push(app);
    return app;
  }

  /** A plain client for inspecting keys. */
  redis(): RedisClient {
    this.admin ??= adminClient(this.url);
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
  // One key a call: on a cluster, UNLINK of several keys must find them on one slot.
  await Promise.all((await scanKeys(redis, `${prefix}*`)).map((key) => redis.unlink(key)));
}

/** Resolves once the clock has passed `time` (epoch ms): waiting for a deadline, e.g. a lease. */
export function untilAfter(time: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (Date.now() > time ? resolve() : setTimeout(check, time - Date.now() + 1));
    check();
  });
}
