/**
 * The event log of a Celery-speaking backend: Celeriac's own log (so `celeriac events` and the
 * dashboard work as with Celeriac's protocol), and each event also sent as a Celery event on the
 * `celeryev` fanout exchange (see protocol/events.ts) for `celery events`, Flower and Python receivers.
 * Celery events are not stored: a receiver sees those sent while it listens, as in Celery.
 */
import type { CeleriacEvent, EventLog, EventReadOptions, StoredEvent } from '@celeriac/core';
import type { Redis } from 'ioredis';
import type { RedisEventLog } from '@celeriac/redis/internal';
import { EVENT_EXCHANGE, toCeleryEvent } from '../protocol/events';
import { fanoutChannel, fanoutMessage } from './fanout';

/** Celeriac's event log, mirrored onto Celery's `celeryev` exchange. */
export class CeleryEventLog implements EventLog {
  /**
   * @param own - Celeriac's log, under the app's prefix.
   * @param client - the command client (Celery's protocol runs on one Redis node).
   * @param keyPrefix - kombu's `global_keyprefix`, which prefixes the channels too.
   */
  constructor(
    private readonly own: RedisEventLog,
    private readonly client: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** Issues the writes of `events` on the command client (inside a caller's corked write, they join it). */
  add(events: readonly CeleriacEvent[]): Array<Promise<unknown>> {
    return [...this.own.add(events), ...this.sendToCelery(events)];
  }

  async append(events: readonly CeleriacEvent[]): Promise<void> {
    await Promise.all([this.own.append(events), ...this.sendToCelery(events)]);
  }

  /** Publishes the Celery event of each event that has one. */
  private sendToCelery(events: readonly CeleriacEvent[]): Array<Promise<unknown>> {
    const db = this.client.options.db ?? 0;
    return events.flatMap((event) => {
      const celery = toCeleryEvent(event);
      if (!celery) return [];
      const channel = fanoutChannel(this.keyPrefix, db, EVENT_EXCHANGE, celery.routingKey);
      const text = fanoutMessage(EVENT_EXCHANGE, celery.routingKey, celery.body, {
        headers: { hostname: celery.body.hostname },
        deliveryMode: 1,
      });
      return [this.client.publish(channel, text)];
    });
  }

  read(after: string, options: EventReadOptions): Promise<StoredEvent[]> {
    return this.own.read(after, options);
  }

  recent(limit: number, before?: string): Promise<StoredEvent[]> {
    return this.own.recent(limit, before);
  }

  lastId(): Promise<string> {
    return this.own.lastId();
  }
}
