/**
 * What a message looks like on RabbitMQ, and the queue its workers consume: the transport's one
 * seam for a second message format. Celeriac's own wire (the default) carries a Celeriac message
 * body as it is, in `<prefix>.<queue>`; the Celery wire of `@celeriac/celery` carries Celery
 * protocol v2 (task headers, `[args, kwargs, embed]`) in the queue Python Celery names, so both sides
 * share it. Everything else (delay levels, dead letters, leases, renewals) is the transport's, under
 * the app's prefix, whichever wire it speaks.
 */
import type { Message } from 'amqplib';

/** A message as amqplib hands it over (content, fields, properties). */
export type AmqpMessage = Message;

/** A message as the wire puts it on RabbitMQ: its content, headers and content properties. */
export interface WireMessage {
  readonly content: Buffer;
  /** The wire's headers; the transport adds its own (`x-celeriac-*`) beside them. */
  readonly headers: Readonly<Record<string, unknown>>;
  readonly contentType: string;
  readonly contentEncoding?: string | undefined;
  readonly correlationId?: string | undefined;
  readonly replyTo?: string | undefined;
}

/** A received message as the wire reads it. */
export interface WireReading {
  readonly id: string;
  /** The Celeriac message body. */
  readonly body: string;
  /** Epoch ms the message is due at, when the wire's own fields say so. */
  readonly eta?: number | undefined;
}

/** The message format and queue names the transport speaks. */
export interface AmqpWire {
  /** How error messages name the transport when it speaks this wire (its capabilities' `transport`). */
  readonly transport?: string;
  /** The RabbitMQ queue workers consume for the Celeriac queue `queue`. */
  readyQueue(prefix: string, queue: string): string;
  /**
   * The message for a Celeriac message body; `previous` is the message it was read from when it is
   * sent again (a retry, a lost delivery), whose wire-only fields (a Celery chain) it keeps.
   */
  encode(body: string, previous?: Message): WireMessage;
  /** The same message, to send again unchanged (a lease renewal's copy, a dead letter). */
  copy(message: Message): WireMessage;
  /**
   * Reads a message received from the Celeriac queue `queue`.
   * @throws for a message the wire cannot read: the transport dead-letters it with the error's message.
   */
  read(message: Message, queue: string): WireReading;
  /** Told when a message it read is leased to run here (the Celery wire remembers its chain then). */
  leased?(message: Message): void;
}

/** Celeriac's own wire: the body as it is, the id as the message id. */
export const CELERIAC_WIRE: AmqpWire = {
  readyQueue: (prefix, queue) => `${prefix}.${queue}`,
  encode: (body) => ({ content: Buffer.from(body, 'utf8'), headers: {}, contentType: 'application/json' }),
  copy: (message) => ({ content: message.content, headers: {}, contentType: 'application/json' }),
  read: (message) => {
    const { properties, fields } = message;
    const id = typeof properties.messageId === 'string' ? properties.messageId : `amqp-${fields.deliveryTag}`;
    return { id, body: message.content.toString('utf8') };
  },
};
