/**
 * A channel opened when first needed and opened afresh after RabbitMQ closed it (a 406 or 404
 * closes the channel that caused it) or the connection was lost.
 */
import type { Channel, ConfirmChannel } from 'amqplib';
import type { AmqpConnection } from './connection';

/** Holds one channel of a connection; `kind` says whether publishes on it are confirmed. */
export class ChannelSlot<C extends Channel = Channel> {
  private current: Promise<C> | undefined;
  private readonly closeListeners = new Set<(channel: C) => void>();

  constructor(
    private readonly connection: AmqpConnection,
    private readonly kind: C extends ConfirmChannel ? 'confirm' : 'plain',
    private readonly setup?: (channel: C) => Promise<void>,
  ) {}

  /** The open channel, opening one (on a fresh connection if need be). */
  get(): Promise<C> {
    this.current ??= this.create();
    return this.current;
  }

  /** Calls `listener` with a channel of this slot once it closed. */
  onClose(listener: (channel: C) => void): void {
    this.closeListeners.add(listener);
  }

  /** Closes the channel (RabbitMQ requeues what was unacked on it). */
  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    const channel = await current?.catch(() => undefined);
    await channel?.close().catch(() => undefined);
  }

  private async create(): Promise<C> {
    try {
      const model = await this.connection.open();
      const channel = (this.kind === 'confirm' ? await model.createConfirmChannel() : await model.createChannel()) as C;
      channel.on('error', () => undefined);
      const created = this.current;
      channel.on('close', () => {
        if (this.current === created) this.current = undefined;
        for (const listener of [...this.closeListeners]) listener(channel);
      });
      await this.setup?.(channel);
      return channel;
    } catch (error) {
      this.current = undefined;
      throw error;
    }
  }
}
