/**
 * One queue's channel in one process, with a consumer on it (manual acks, per-consumer prefetch,
 * never global QoS). Delivered messages wait in `buffer` until `reserve` takes them; when the
 * channel closes, RabbitMQ requeues them and the buffer is dropped. A larger prefetch than the
 * running consumer's cancels it and consumes afresh: messages it delivered stay unacked on the
 * channel and are settled there as before.
 */
import type { Channel } from 'amqplib';
import { ChannelSlot } from './channel-slot';
import type { AmqpConnection } from './connection';
import type { QueueNames } from './names';
import { readReceived, type Received } from './received';
import type { AmqpWire } from './wire';

/** A queue's channel, consumer and buffer of delivered messages. */
export class QueueConsumer {
  readonly buffer: Received[] = [];
  private readonly slot: ChannelSlot;
  private consuming: Promise<void> | undefined;
  /** The prefetch of the running consumer (0 while none runs). */
  prefetch = 0;
  private tag: string | undefined;

  constructor(
    connection: AmqpConnection,
    readonly names: QueueNames,
    /** Told when a message arrived, or with the channel that closed (a waiter should look again). */
    private readonly changed: (closed?: Channel) => void,
    private readonly wire: AmqpWire,
  ) {
    this.slot = new ChannelSlot(connection, 'plain');
    this.slot.onClose((channel) => this.dropped(channel));
  }

  /** Starts the consumer, holding at most `prefetch` unacked messages (more than it holds: afresh). */
  async consume(prefetch: number): Promise<void> {
    if (this.consuming) await this.consuming.catch(() => undefined);
    if (this.consuming && this.prefetch >= prefetch) return this.consuming;
    const previous = this.tag;
    this.consuming = this.startConsumer(prefetch, previous).catch((error: unknown) => {
      this.consuming = undefined;
      throw error;
    });
    return this.consuming;
  }

  /**
   * A round trip on the consumer's channel (a basic.qos, answered by the channel itself): RabbitMQ
   * answers a channel in order, so what it pushed to the consumer before is in `buffer` after.
   */
  async sync(): Promise<void> {
    const channel = await this.slot.get();
    await channel.prefetch(Math.max(1, this.prefetch), false);
  }

  /** Takes up to `count` messages with basic.get, stopping at the first empty answer. */
  async fetch(count: number): Promise<Received[]> {
    const channel = await this.slot.get();
    const taken: Received[] = [];
    while (taken.length < count) {
      const message = await channel.get(this.names.ready, { noAck: false });
      if (message === false) break;
      taken.push(readReceived(channel, message, this.names.queue, this.wire));
    }
    return taken;
  }

  /**
   * How many messages wait in the ready queue, asked on the consumer's channel: RabbitMQ answers on
   * a channel in order, so every message it pushed to the consumer before is in `buffer` after.
   */
  async flush(): Promise<number> {
    const channel = await this.slot.get();
    return (await channel.checkQueue(this.names.ready)).messageCount;
  }

  /** The channel messages of this queue are settled on. */
  channel(): Promise<Channel> {
    return this.slot.get();
  }

  /** Closes the channel; RabbitMQ requeues what it held. */
  async close(): Promise<void> {
    this.consuming = undefined;
    this.tag = undefined;
    this.buffer.length = 0;
    await this.slot.close();
  }

  private async startConsumer(prefetch: number, previous: string | undefined): Promise<void> {
    const channel = await this.slot.get();
    if (previous !== undefined) await channel.cancel(previous);
    await channel.prefetch(prefetch, false);
    this.prefetch = prefetch;
    const { consumerTag } = await channel.consume(
      this.names.ready,
      (message) => {
        if (message === null) return this.dropped(channel); // cancelled by the server (queue deleted)
        this.buffer.push(readReceived(channel, message, this.names.queue, this.wire));
        this.changed();
      },
      { noAck: false },
    );
    this.tag = consumerTag;
  }

  private dropped(channel: Channel): void {
    const kept = this.buffer.filter((received) => received.channel !== channel);
    this.buffer.length = 0;
    this.buffer.push(...kept);
    this.consuming = undefined;
    this.prefetch = 0;
    this.tag = undefined;
    this.changed(channel);
  }
}
