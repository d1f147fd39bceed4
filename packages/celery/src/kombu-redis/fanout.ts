/**
 * Kombu's fanout exchanges on Redis: a message to every consumer bound at that moment, sent with
 * PUBLISH on `<global_keyprefix>/<db>.<exchange>` (with `/<routing key>` when there is one), in the
 * same JSON envelope as a queued message, its body base64 JSON. Celery's remote control (`pidbox`)
 * and its events (`celeryev`) travel this way; nothing is stored, so a consumer hears only what is
 * sent while it listens.
 */
import { randomUUID } from 'node:crypto';
import { JSON_CONTENT_TYPE } from '../protocol/payload';

/** Kombu's delivery modes: transient (events) or persistent (control commands). */
export type DeliveryMode = 1 | 2;

/** A fanout message as kombu sends it. */
export interface FanoutEnvelope {
  body: string;
  'content-encoding': string;
  'content-type': string;
  headers: Record<string, unknown>;
  properties: {
    delivery_mode: DeliveryMode;
    delivery_info: { exchange: string; routing_key: string };
    priority: number;
    body_encoding: 'base64';
    delivery_tag: string;
  };
}

/**
 * The channel kombu publishes a fanout exchange's messages on.
 * @param keyPrefix - kombu's `global_keyprefix` (it prefixes channels too).
 * @param db - the Redis database number of the broker URL (kombu's `fanout_prefix` names it).
 */
export function fanoutChannel(keyPrefix: string, db: number, exchange: string, routingKey = ''): string {
  const topic = routingKey === '' ? exchange : `${exchange}/${routingKey}`;
  return `${keyPrefix}/${db}.${topic}`;
}

/** The text kombu sends for `body` (any JSON value) on a fanout exchange. */
export function fanoutMessage(
  exchange: string,
  routingKey: string,
  body: unknown,
  options: { headers: Record<string, unknown>; deliveryMode: DeliveryMode },
): string {
  const envelope: FanoutEnvelope = {
    body: Buffer.from(JSON.stringify(body)).toString('base64'),
    'content-encoding': 'utf-8',
    'content-type': JSON_CONTENT_TYPE,
    headers: options.headers,
    properties: {
      delivery_mode: options.deliveryMode,
      delivery_info: { exchange, routing_key: routingKey },
      priority: 0,
      body_encoding: 'base64',
      delivery_tag: randomUUID(),
    },
  };
  return JSON.stringify(envelope);
}

/** The body of a fanout message, or undefined when it is not JSON (pickle is never read). */
export function fanoutBody(text: string): unknown {
  try {
    const envelope = JSON.parse(text) as Partial<FanoutEnvelope>;
    if (envelope['content-type'] !== JSON_CONTENT_TYPE || typeof envelope.body !== 'string') return undefined;
    const raw = envelope.properties?.body_encoding === 'base64' ? Buffer.from(envelope.body, 'base64') : envelope.body;
    return JSON.parse(raw.toString()) as unknown;
  } catch {
    return undefined;
  }
}
