/**
 * A fanout exchange that another system broadcasts on (Celery's `celery.pidbox`, for the Celery
 * wire's remote control): a listener gets every message through a queue of its own (server-named,
 * exclusive: gone with its connection), declared again after a lost connection, as long as it
 * listens; `publish` sends to the exchange, or to another one (a reply), without confirms: these
 * broadcasts are transient, as their senders make them.
 */
import type { Channel, Message } from 'amqplib';
import { ChannelSlot } from './channel-slot';
import { AmqpConnection } from './connection';

/** An exchange as its owner declares it (a mismatch would close the channel with a 406). */
export interface ExchangeShape {
  readonly name: string;
  readonly type: 'fanout' | 'direct' | 'topic';
  readonly durable: boolean;
}

/** What a published message carries. */
export interface FanoutMessage {
  readonly content: Buffer;
  readonly headers?: Record<string, unknown>;
  readonly contentType?: string;
  readonly contentEncoding?: string;
  readonly correlationId?: string;
}

/** RabbitMQ's default exchange: it routes to the queue the routing key names (it cannot be declared). */
export const DEFAULT_EXCHANGE: ExchangeShape = { name: '', type: 'direct', durable: true };

/** How long a listener waits before it declares its queue again after a failed attempt. */
const RELISTEN_MS = 1_000;

/** Listens on and publishes to the fanout exchange `exchange`, on a connection of its own. */
export class AmqpFanout {
  private readonly connection: AmqpConnection;
  private readonly publishing: ChannelSlot;
  private closed = false;

  /** `urls`: the broker's nodes (tried in turn); `where`: how errors name them (no password). */
  constructor(
    urls: readonly string[],
    where: string,
    private readonly exchange: ExchangeShape,
  ) {
    this.connection = new AmqpConnection(urls, where);
    this.publishing = new ChannelSlot(this.connection, 'plain');
  }

  /** Calls `heard` with every message broadcast from now on; resolves once the first queue is bound. */
  async listen(heard: (message: Message) => void): Promise<() => Promise<void>> {
    let listening = true;
    let retry: NodeJS.Timeout | undefined;
    const slot = new ChannelSlot(this.connection, 'plain', async (channel) => {
      await this.declare(channel, this.exchange);
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
      await channel.bindQueue(queue, this.exchange.name, '');
      await channel.consume(queue, (message) => message && heard(message), { noAck: true });
    });
    const again = () => {
      if (!listening || this.closed) return;
      slot.get().catch(() => {
        retry = setTimeout(again, RELISTEN_MS);
        retry.unref();
      });
    };
    // The channel closes with a lost connection: a new queue on the next one.
    slot.onClose(again);
    await slot.get();
    return async () => {
      listening = false;
      clearTimeout(retry);
      await slot.close();
    };
  }

  /** Publishes `message` to `to` (this exchange unless another is given) under `routingKey`. */
  async publish(message: FanoutMessage, to: ExchangeShape = this.exchange, routingKey = ''): Promise<void> {
    const channel = await this.publishing.get();
    if (to.name !== '') await this.declare(channel, to);
    channel.publish(to.name, routingKey, message.content, {
      deliveryMode: 1,
      headers: message.headers ?? {},
      contentType: message.contentType ?? 'application/json',
      contentEncoding: message.contentEncoding ?? 'utf-8',
      ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
    });
  }

  /** Closes the connection; every listener ends. */
  async close(): Promise<void> {
    this.closed = true;
    await this.publishing.close();
    await this.connection.close();
  }

  private async declare(channel: Channel, shape: ExchangeShape): Promise<void> {
    await channel.assertExchange(shape.name, shape.type, { durable: shape.durable, autoDelete: false });
  }
}
