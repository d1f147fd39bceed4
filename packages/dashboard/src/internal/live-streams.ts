/**
 * The open live feeds of one dashboard, with their limits: at most `maxLiveStreams` at once, at
 * most `maxLiveStreamsPerClient` from one address, each for at most `liveStreamLifetime` (then the
 * server ends it and the browser's EventSource opens a new one).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResolvedDashboardOptions } from '../options';
import { clientAddress } from './client-address';
import { HttpError } from './http';

/** Seconds a refused browser is told to wait before it tries again. */
const RETRY_AFTER_S = 5;

/** Counts and ends the live feeds. */
export class LiveStreams {
  private readonly open = new Map<ServerResponse, string>();
  private readonly perClient = new Map<string, number>();

  constructor(
    private readonly options: Pick<
      ResolvedDashboardOptions,
      'maxLiveStreams' | 'maxLiveStreamsPerClient' | 'liveStreamLifetime'
    >,
  ) {}

  /**
   * Takes a slot for the feed of `req`, or refuses it (503) when the dashboard or its client holds
   * as many as allowed. The slot is given back when the response closes; it is ended at the end of
   * its lifetime.
   */
  admit(req: IncomingMessage, res: ServerResponse): void {
    const client = clientAddress(req);
    const held = this.perClient.get(client) ?? 0;
    const { maxLiveStreams, maxLiveStreamsPerClient, liveStreamLifetime } = this.options;
    if (this.open.size >= maxLiveStreams || held >= maxLiveStreamsPerClient) {
      res.setHeader('Retry-After', String(RETRY_AFTER_S));
      const full =
        this.open.size >= maxLiveStreams
          ? `The dashboard serves ${maxLiveStreams} live feeds already (maxLiveStreams)`
          : `This address holds ${maxLiveStreamsPerClient} live feeds already (maxLiveStreamsPerClient)`;
      throw new HttpError(503, 'CELERIAC_TOO_MANY_STREAMS', `${full}; close some pages.`);
    }
    this.open.set(res, client);
    this.perClient.set(client, held + 1);
    const lifetime = setTimeout(() => res.end(), liveStreamLifetime);
    lifetime.unref();
    res.once('close', () => {
      clearTimeout(lifetime);
      this.release(res);
    });
  }

  /** Ends every feed (the dashboard closes). */
  endAll(): void {
    for (const res of [...this.open.keys()]) {
      res.end();
      this.release(res);
    }
  }

  private release(res: ServerResponse): void {
    const client = this.open.get(res);
    if (client === undefined) return;
    this.open.delete(res);
    const held = (this.perClient.get(client) ?? 1) - 1;
    if (held > 0) this.perClient.set(client, held);
    else this.perClient.delete(client);
  }
}
