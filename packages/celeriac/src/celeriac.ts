/**
 * `Celeriac`: the app users create. It adds to the core app the Redis transport (`redis://`,
 * `rediss://`; `memory://` comes from core) and in-process workers.
 */
import { CeleriacCore, type BackendSettings, type Broker, type BrokerSettings, type ResultBackend } from '@celeriac/core';
import { Worker, type WorkerOptions } from '@celeriac/worker';
import type { RedisTransports } from './transports';

/** The Redis URL schemes. */
const REDIS_SCHEMES = ['redis:', 'rediss:'];

/** The Celeriac app: declare tasks, send them, read results, run workers. */
export class Celeriac extends CeleriacCore {
  private redisTransports: RedisTransports | undefined;

  /**
   * Creates an in-process worker for this app (call `start()` on it). Closing the app closes it.
   * For process pools, run the `celeriac worker` command.
   */
  worker(options: WorkerOptions = {}): Worker {
    return new Worker(this, options);
  }

  protected override createBroker(url: URL, settings: BrokerSettings): Broker {
    if (REDIS_SCHEMES.includes(url.protocol)) return this.redis().broker(url, settings);
    return super.createBroker(url, settings);
  }

  protected override createBackend(url: URL, settings: BackendSettings): ResultBackend {
    if (REDIS_SCHEMES.includes(url.protocol)) return this.redis().backend(url, settings, this.codec);
    return super.createBackend(url, settings);
  }

  protected override supportedSchemes(): string[] {
    return [...super.supportedSchemes(), ...REDIS_SCHEMES];
  }

  private redis(): RedisTransports {
    // Loaded on first use: a process that never talks to Redis (a pool child) skips loading ioredis.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.redisTransports ??= new (require('./transports') as typeof import('./transports')).RedisTransports();
    return this.redisTransports;
  }
}
