/**
 * One AMQP connection that comes back by itself. States: `idle` (no connection) → `connecting` →
 * `open` → (lost: the server closed it, the socket dropped) `idle` again, and `closed` for good.
 * Nothing reconnects in the background: the next call that needs a channel opens a new connection,
 * and every holder of a channel hears `onLost` so it drops what it held on the old one (RabbitMQ
 * requeues the unacked messages of a closed channel itself).
 */
import { connect, type ChannelModel } from 'amqplib';
import { coalesceWrites } from './coalesced-writes';
import { connectFailed, transportClosed } from './amqp-errors';

/** The connection's state (see the module comment). */
export type ConnectionState = 'idle' | 'connecting' | 'open' | 'closed';

/** A self-renewing connection to one of the URLs (a cluster's nodes, tried in turn). */
export class AmqpConnection {
  private model: ChannelModel | undefined;
  private connecting: Promise<ChannelModel> | undefined;
  private state: ConnectionState = 'idle';
  private lastFailure: string | undefined;
  private next = 0;
  private readonly lostListeners = new Set<() => void>();

  /** `urls`: one or more `amqp://` URLs of the same cluster; `where`: how errors name them (no password). */
  constructor(
    private readonly urls: readonly string[],
    private readonly where: string,
  ) {}

  /** The open connection, opening one if there is none. Rejects with a typed error when none can be opened. */
  async open(): Promise<ChannelModel> {
    if (this.state === 'closed') throw transportClosed();
    if (this.model) return this.model;
    this.connecting ??= this.dial().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Calls `listener` whenever the connection is lost; returns a function that stops it. */
  onLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Why the last attempt to connect failed, while no connection is open. */
  unreachable(): string | undefined {
    return this.model ? undefined : this.lastFailure;
  }

  /** Closes the connection for good. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    const model = this.model ?? (await this.connecting?.catch(() => undefined));
    this.model = undefined;
    this.emitLost();
    await model?.close().catch(() => undefined);
  }

  private async dial(): Promise<ChannelModel> {
    this.state = 'connecting';
    let failure: unknown;
    // Each node of a cluster once, starting with the one after the last that worked.
    for (let tried = 0; tried < this.urls.length; tried += 1) {
      const url = this.urls[(this.next + tried) % this.urls.length] as string;
      try {
        const model = await connect(url, { clientProperties: { connection_name: 'celeriac' } });
        this.next = (this.next + tried) % this.urls.length;
        return this.adopt(model);
      } catch (error) {
        failure = error;
      }
    }
    if (this.isOpenable()) this.state = 'idle';
    this.lastFailure = (failure as Error | undefined)?.message ?? String(failure);
    throw connectFailed(this.where, failure);
  }

  private adopt(model: ChannelModel): ChannelModel {
    if (!this.isOpenable()) {
      void model.close().catch(() => undefined);
      throw transportClosed();
    }
    this.state = 'open';
    this.lastFailure = undefined;
    this.model = model;
    coalesceWrites(model);
    // An error always comes with a close; the close is what counts.
    model.on('error', () => undefined);
    model.on('close', () => {
      if (this.model !== model) return;
      this.model = undefined;
      if (this.state !== 'closed') this.state = 'idle';
      this.emitLost();
    });
    return model;
  }

  /** False once closed (a close may come while an attempt is under way). */
  private isOpenable(): boolean {
    return this.state !== 'closed';
  }

  private emitLost(): void {
    for (const listener of [...this.lostListeners]) listener();
  }
}
