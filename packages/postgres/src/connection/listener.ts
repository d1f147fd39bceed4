import { Client, type ClientConfig, type Notification } from 'pg';
import { quoted } from './schema-name';

/** Reconnect delays after the listening connection drops: 100 ms, doubling, at most 1 s. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;

/** Called with a notification's payload ('' when it had none). */
export type NotificationHandler = (payload: string) => void;

/**
 * The one session a process LISTENs on (LISTEN needs a session-mode connection: not a
 * transaction-mode PgBouncer). It reconnects by itself and LISTENs again to every channel; a
 * notification sent while it was away is lost, so after each reconnect it calls the `onResume`
 * handlers, and whoever waits re-reads what it waits for.
 */
export class Listener {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly resumeHandlers = new Set<() => void>();
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Why the last connection attempt failed, until one succeeds. */
  lastError: Error | undefined;

  constructor(private readonly config: ClientConfig) {}

  /**
   * Calls `handler` for every notification on `channel` from the moment this resolves (the LISTEN is
   * done); returns the unsubscribe function.
   */
  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    if (first) {
      const client = await this.connected();
      await client.query(`LISTEN ${quoted(channel)}`);
    }
    return async () => {
      const handlers = this.handlers.get(channel);
      if (!handlers?.delete(handler) || handlers.size > 0) return;
      this.handlers.delete(channel);
      await this.client?.query(`UNLISTEN ${quoted(channel)}`).catch(() => undefined);
    };
  }

  /** Calls `handler` after each reconnect (notifications may have been missed); returns the unsubscribe function. */
  onResume(handler: () => void): () => void {
    this.resumeHandlers.add(handler);
    return () => this.resumeHandlers.delete(handler);
  }

  /** Ends the session; pending listens reject. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    if (this.closed) throw new Error('The PostgreSQL listener is closed.');
    const client = new Client(this.config);
    client.on('notification', (message: Notification) => this.dispatch(message));
    client.on('error', (error: Error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('The listening connection ended.')));
    try {
      await client.connect();
      // Closed while connecting: this session must not outlive the close.
      if (this.closed) throw new Error('The PostgreSQL listener is closed.');
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoted(channel)}`);
    } catch (error) {
      this.lastError = error as Error;
      await client.end().catch(() => undefined);
      throw error;
    }
    this.lastError = undefined;
    this.retryMs = FIRST_RETRY_MS;
    this.client = client;
    return client;
  }

  private dispatch(message: Notification): void {
    for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
  }

  /** The session dropped: reconnect in the background, then tell the waiters to re-read. */
  private lost(client: Client, error: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.lastError = error;
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer || this.handlers.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connected().then(
        () => this.resumeHandlers.forEach((handler) => handler()),
        () => {
          this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
          this.scheduleReconnect();
        },
      );
    }, this.retryMs);
    this.retryTimer.unref();
  }
}
