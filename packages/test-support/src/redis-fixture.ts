/**
 * Test fixtures for the Redis package: apps under a random key prefix per test, removed afterwards
 * (only their own keys, found by SCAN on the prefix), and a helper to wait until a time has passed.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Celeriac, type CeleriacOptions } from 'celeriac';
import { sentinelOptions, SENTINEL_SCHEMES } from '@celeriac/redis';
import { SENTINEL_URL } from './sentinel-servers';

/**
 * The Redis the tests use: `CELERIAC_REDIS_TOPOLOGY=sentinel` picks the test Sentinel setup
 * (sentinel-servers.ts); otherwise `REDIS_URL`, by default the single Redis on 6379.
 */
export const REDIS_URL =
  process.env.CELERIAC_REDIS_TOPOLOGY === 'sentinel'
    ? SENTINEL_URL
    : (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0');

/** A plain ioredis client for a test URL (a Sentinel URL reaches the current master). */
export function adminClient(url: string = REDIS_URL): Redis {
  return SENTINEL_SCHEMES.some((scheme) => url.startsWith(`${scheme}//`))
    ? new Redis(sentinelOptions(url))
    : new Redis(url);
}

/** A fresh key prefix for one test. */
export function freshPrefix(label: string): string {
  return `celeriac-test:${label}:${randomBytes(4).toString('hex')}`;
}

/** Creates apps on one prefix and, on `cleanup()`, closes them and deletes the prefix's keys. */
export class RedisFixture {
  readonly prefix: string;
  private readonly apps: Celeriac[] = [];
  private admin: Redis | undefined;

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
  redis(): Redis {
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

/** Deletes the keys whose names start with `prefix` (found with SCAN), and nothing else. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

/** Resolves once the clock has passed `time` (epoch ms): waiting for a deadline, e.g. a lease. */
export function untilAfter(time: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (Date.now() > time ? resolve() : setTimeout(check, time - Date.now() + 1));
    check();
  });
}
