/**
 * `Celeriac`: the app users create. It adds to the core app the Redis transport (`redis://`,
 * `rediss://`, Redis Sentinel `redis+sentinel://` and Redis Cluster `redis+cluster://` (each also
 * with TLS: `rediss+...`); `memory://` comes from core), in-process workers, and periodic tasks
 * (`schedule`, `beat`).
 */
import { Beat, type ScheduleEntry } from '@celeriac/beat';
import {
  CeleriacCore,
  CeleriacError,
  MemoryBeatStore,
  type BackendSettings,
  type BeatStore,
  type Broker,
  type BrokerSettings,
  type Codec,
  type ResultBackend,
} from '@celeriac/core';
import { parseTransportUrl, runtimeOf } from '@celeriac/core/internal';
import { Worker, type WorkerOptions } from '@celeriac/worker';
import { CLUSTER_SCHEMES, SENTINEL_SCHEMES } from '@celeriac/redis';
import { RedisTransports } from './transports';

/** The Redis URL schemes. */
const REDIS_SCHEMES = ['redis:', 'rediss:', ...SENTINEL_SCHEMES, ...CLUSTER_SCHEMES];

/** The Celeriac app: declare tasks, send them, read results, run workers, schedule periodic tasks. */
export class Celeriac extends CeleriacCore {
  #redisTransports: RedisTransports | undefined;
  #beatInstance: Beat | undefined;

  /**
   * Creates an in-process worker for this app (call `start()` on it). Closing the app closes it.
   * For process pools, run the `celeriac worker` command.
   */
  worker(options: WorkerOptions = {}): Worker {
    return new Worker(this, options);
  }

  /**
   * Schedules a task periodically: `app.schedule('cleanup', { task: cleanup, schedule:
   * crontab('0 3 * * *', { tz: 'Asia/Shanghai' }) })`. The `celeriac beat` command fires it.
   * @throws CeleriacError `CELERIAC_INVALID_SCHEDULE`, naming the entry, for a bad cron expression,
   * time zone, interval, task, argument or option, or a name already scheduled.
   */
  schedule<A extends unknown[]>(name: string, entry: ScheduleEntry<A>): void {
    this.beat.define(name, entry);
  }

  /**
   * The app's periodic entries: `add`, `remove` and `list` entries at run time (kept in the broker's
   * Redis, picked up by running schedulers at once), and `scheduler()` to fire them in this process.
   */
  get beat(): Beat {
    this.#beatInstance ??= new Beat(this, () => this.createBeatStore());
    return this.#beatInstance;
  }

  protected override createBroker(url: URL, settings: BrokerSettings): Broker {
    if (REDIS_SCHEMES.includes(url.protocol) && this.options.protocol === 'celery') {
      return this.redis().celeryBroker(url, settings, this.options.celery, runtimeOf(this).codec);
    }
    if (REDIS_SCHEMES.includes(url.protocol)) return this.redis().broker(url, settings);
    return super.createBroker(url, settings);
  }

  protected override createBackend(url: URL, settings: BackendSettings, codec: Codec): ResultBackend {
    if (REDIS_SCHEMES.includes(url.protocol) && this.options.protocol === 'celery') {
      return this.redis().celeryBackend(url, settings, this.options.celery, codec);
    }
    if (REDIS_SCHEMES.includes(url.protocol)) return this.redis().backend(url, settings, codec);
    return super.createBackend(url, settings, codec);
  }

  protected override supportedSchemes(): string[] {
    return [...super.supportedSchemes(), ...REDIS_SCHEMES];
  }

  /** Beat keeps its state where the broker is: in Redis, or in this process for `memory://`. */
  private createBeatStore(): BeatStore {
    const broker = this.options.broker;
    if (typeof broker !== 'string') {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        'Periodic tasks keep their state next to the broker: give the broker as a URL (redis://... or memory://), ' +
          'not as an object.',
      );
    }
    const url = parseTransportUrl(broker);
    return REDIS_SCHEMES.includes(url.protocol)
      ? this.redis().beatStore(url, this.options.prefix)
      : new MemoryBeatStore();
  }

  private redis(): RedisTransports {
    this.#redisTransports ??= new RedisTransports();
    return this.#redisTransports;
  }
}
