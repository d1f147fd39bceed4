/**
 * The names of the queues messages were sent to, kept in RabbitMQ itself (AMQP cannot list queues):
 * a classic queue `<prefix>.queues` holding one message per name. A process notes each queue once
 * a connection; reading takes every message, acks the repeats (so the queue stays one a name) and
 * closes the channel, which puts the rest back.
 */
import type { AmqpConnection } from './connection';
import type { AmqpQueueType } from './options';
import type { Publisher } from './publisher';
import { companionArguments, declareQueue } from './topology';

/** The queue that holds the names. */
export function registryQueue(prefix: string): string {
  return `${prefix}.queues`;
}

/** Notes and lists the queue names of one prefix. */
export class QueueRegistry {
  private readonly noted = new Map<string, Promise<void>>();
  private declared: Promise<void> | undefined;

  constructor(
    private readonly connection: AmqpConnection,
    private readonly publisher: Publisher,
    private readonly prefix: string,
    private readonly queueType: AmqpQueueType,
  ) {
    connection.onLost(() => {
      this.noted.clear();
      this.declared = undefined;
    });
  }

  /** Notes `queue` (once a connection). */
  note(queue: string): Promise<void> {
    let noting = this.noted.get(queue);
    if (!noting) {
      noting = this.write(queue);
      this.noted.set(queue, noting);
      noting.catch(() => this.noted.delete(queue));
    }
    return noting;
  }

  /** Every queue noted so far, sorted. */
  async list(): Promise<string[]> {
    await this.declare();
    const model = await this.connection.open();
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    const names = new Set<string>();
    try {
      for (;;) {
        const message = await channel.get(registryQueue(this.prefix), { noAck: false });
        if (message === false) break;
        const name = message.content.toString('utf8');
        if (names.has(name)) channel.ack(message);
        else names.add(name);
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
    return [...names].sort();
  }

  private async write(queue: string): Promise<void> {
    await this.declare();
    const name = registryQueue(this.prefix);
    await this.publisher.publish([
      { id: `queue:${queue}`, queue: name, exchange: '', routingKey: name, body: Buffer.from(queue) },
    ]);
  }

  private declare(): Promise<void> {
    this.declared ??= (async () => {
      const model = await this.connection.open();
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      await declareQueue(channel, registryQueue(this.prefix), companionArguments(this.queueType));
      await channel.close();
    })().catch((error: unknown) => {
      this.declared = undefined;
      throw error;
    });
    return this.declared;
  }
}
