/**
 * The event log of a Celery-speaking backend: Celeriac's own log (so `celeriac events` and the
 * dashboard work as with Celeriac's protocol), and each event also sent as a Celery event on the
 * `celeryev` exchange (see protocol/events.ts) for `celery events`, Flower and Python receivers: on
 * kombu's Redis fanout channels, or through the sender given (RabbitMQ's `celeryev` topic exchange).
 * Celery events are not stored: a receiver sees those sent while it listens, as in Celery.
 */
import type { CeleriacEvent, EventLog, EventReadOptions, StoredEvent } from '@celeriac/core';
import type { Redis } from 'ioredis';
import type { RedisEventLog } from '@celeriac/redis/internal';
import { EVENT_EXCHANGE, toCeleryEvent, type CeleryEventSender } from '../protocol/events';
import { fanoutChannel, fanoutMessage } from './fanout';

/** The sender of kombu's Redis transport: a PUBLISH on the exchange's channel, as kombu's fanout does it. */
export function redisEventSender(client: Redis, keyPrefix: string): CeleryEventSender {
  const db = client.options.db ?? 0;
  return (celery) => {
    const channel = fanoutChannel(keyPrefix, db, EVENT_EXCHANGE, celery.routingKey);
    const text = fanoutMessage(EVENT_EXCHANGE, celery.routingKey, celery.body, {
      headers: { hostname: celery.body.hostname },
      deliveryMode: 1,
    });
    return client.publish(channel, text);
  };
}

/** Celeriac's event log, mirrored onto Celery's `celeryev` exchange. */
export class CeleryEventLog implements EventLog {
  /**
   * @param own - Celeriac's log, under the app's prefix.
   * @param send - where each Celery event goes (see {@link redisEventSender}).
   */
  constructor(
    private readonly own: RedisEventLog,
    private readonly send: CeleryEventSender,
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
    return events.flatMap((event) => {
      const celery = toCeleryEvent(event);
      return celery ? [this.send(celery)] : [];
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
