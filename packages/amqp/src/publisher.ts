/**
 * Confirmed publishing: one confirm channel, every message persistent and `mandatory`. A publish
 * resolves when RabbitMQ confirmed it; a message it returned (unroutable), or kept nacking, rejects
 * with `CELERIAC_PUBLISH_REFUSED`. A publish cut off by a lost connection is sent again on the next one
 * (at least once: it may then be stored twice).
 */
import type { ConfirmChannel, Message } from 'amqplib';
import { CeleriacError } from '@celeriac/core';
import { publishRefused } from './amqp-errors';
import { ChannelSlot } from './channel-slot';
import type { AmqpConnection } from './connection';
import type { WireMessage } from './wire';

/** What Celeriac sends with a message, beside its body. */
export interface OutgoingMessage {
  readonly id: string;
  /** The Celeriac queue, for errors. */
  readonly queue: string;
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: Buffer;
  readonly priority?: number | undefined;
  /**
   * The wire's headers and the transport's (`extraHeaders`), built afresh: never copied from a
   * delivery, whose `x-death` would have RabbitMQ drop it.
   */
  readonly headers?: Readonly<Record<string, unknown>>;
  readonly extraHeaders?: Readonly<Record<string, string | number>>;
  /** @defaultValue `'application/json'` */
  readonly contentType?: string | undefined;
  readonly contentEncoding?: string | undefined;
  readonly correlationId?: string | undefined;
  readonly replyTo?: string | undefined;
}

/** The parts of an {@link OutgoingMessage} a wire message gives. */
export function wireParts(
  wire: WireMessage,
): Pick<OutgoingMessage, 'body' | 'headers' | 'contentType' | 'contentEncoding' | 'correlationId' | 'replyTo'> {
  return {
    body: wire.content,
    headers: wire.headers,
    contentType: wire.contentType,
    contentEncoding: wire.contentEncoding,
    correlationId: wire.correlationId,
    replyTo: wire.replyTo,
  };
}

/** How long a publish keeps trying through a lost connection before it gives up. */
const RETRY_FOR_MS = 15_000;

/** Publishes on a confirm channel and waits for the confirms. */
export class Publisher {
  private readonly slot: ChannelSlot<ConfirmChannel>;
  /** Message ids RabbitMQ returned on a channel, waiting for their confirm. */
  private readonly returned = new WeakMap<ConfirmChannel, Set<string>>();

  constructor(connection: AmqpConnection) {
    this.slot = new ChannelSlot<ConfirmChannel>(connection, 'confirm', async (channel) => {
      const returned = new Set<string>();
      this.returned.set(channel, returned);
      channel.on('return', (message: Message) => {
        const id = message.properties.messageId as string | undefined;
        if (id !== undefined) returned.add(id);
      });
    });
  }

  /**
   * Publishes `messages`, resolving once every one is confirmed. A publish cut off by a lost channel,
   * or nacked (a quorum queue between leaders after a node loss), is sent again on a fresh channel
   * for up to {@link RETRY_FOR_MS}; a returned one (no queue bound) is refused at once.
   */
  async publish(messages: readonly OutgoingMessage[]): Promise<void> {
    const started = Date.now();
    let pending = messages;
    for (let attempt = 0; ; attempt += 1) {
      const channel = await this.slot.get();
      const outcomes = await Promise.allSettled(pending.map((message) => this.send(channel, message)));
      const failures = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
      );
      if (failures.length === 0) return;
      const returned = failures.find((reason) => reason instanceof CeleriacError);
      if (returned) throw returned;
      const last = failures[0];
      if (Date.now() - started > RETRY_FOR_MS) {
        throw last instanceof Nacked ? publishRefused(last.queue, 'nacked') : last;
      }
      pending = pending.filter((_, index) => outcomes[index]?.status === 'rejected');
      // A channel that nacks may keep a stale view of the queue's leader: the next attempt opens a fresh one.
      if (failures.some((reason) => reason instanceof Nacked)) await this.slot.close();
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
    }
  }

  /** Closes the channel. */
  close(): Promise<void> {
    return this.slot.close();
  }

  private send(channel: ConfirmChannel, message: OutgoingMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const options = {
        persistent: true,
        mandatory: true,
        messageId: message.id,
        contentType: message.contentType ?? 'application/json',
        headers: { ...message.headers, ...message.extraHeaders },
        ...(message.contentEncoding === undefined ? {} : { contentEncoding: message.contentEncoding }),
        ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
        ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
        ...(message.priority === undefined ? {} : { priority: message.priority }),
      };
      const confirmed = (error: unknown) => {
        const returned = this.returned.get(channel);
        if (returned?.delete(message.id)) reject(publishRefused(message.queue, 'returned'));
        else if (error === null || error === undefined) resolve();
        else if (error instanceof Error && /nack/i.test(error.message)) reject(new Nacked(message.queue));
        else reject(error instanceof Error ? error : new Error(`publish failed: ${JSON.stringify(error)}`));
      };
      try {
        channel.publish(message.exchange, message.routingKey, message.body, options, confirmed);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }
}

/** A publish RabbitMQ nacked: sent again a while, then refused (see `publish`). */
class Nacked extends Error {
  constructor(readonly queue: string) {
    super(`RabbitMQ nacked a message for queue ${queue}`);
  }
}
