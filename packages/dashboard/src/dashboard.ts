/**
 * `createDashboard(app)`: the dashboard as a Node request handler, to mount in `http.createServer`,
 * Express, Fastify's middie or any server that takes `(req, res)`; and `listen()` to serve it alone,
 * as `celeriac dashboard` does. Listening on an address other than loopback needs authentication,
 * unless `insecure` says the network in between is trusted.
 */
import { CeleriacError } from '@celeriac/core';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DashboardApp } from './app';
import { Guard } from './internal/auth';
import { HostGuard } from './internal/host-guard';
import { LiveFeed } from './internal/live-feed';
import { LiveStreams } from './internal/live-streams';
import { createRouter } from './internal/router';
import { resolveDashboardOptions, type DashboardOptions, type RequestHandler } from './options';

/** Options of {@link Dashboard.listen}. */
export interface ListenOptions {
  /**
   * The TCP port; `0` picks a free one.
   * @defaultValue `5555`
   */
  readonly port?: number;
  /**
   * The address to bind.
   * @defaultValue `'127.0.0.1'` (this machine only)
   */
  readonly host?: string;
  /**
   * Listen on a non-loopback address without `basicAuth` or `token`: anyone who reaches the port
   * can then see the tasks and, unless read-only, act on them.
   * @defaultValue `false`
   */
  readonly insecure?: boolean;
}

/** The dashboard's request handler, with a way to serve it alone and to stop it. */
export interface Dashboard extends RequestHandler {
  /** Starts an HTTP server for the dashboard; resolves with its URL once it listens. */
  listen(options?: ListenOptions): Promise<{ url: string; server: Server }>;
  /** Ends the live connections, stops reading the event log and closes the server of `listen`. Leaves the app open. */
  close(): Promise<void>;
}

const LISTEN_DEFAULTS = { port: 5555, host: '127.0.0.1', insecure: false } as const satisfies ListenOptions;

/** Creates the dashboard of `app`. It reads the event log from its first request (or `listen`). */
export function createDashboard(app: DashboardApp, options: DashboardOptions = {}): Dashboard {
  const resolved = resolveDashboardOptions(options);
  const feed = new LiveFeed(app, resolved);
  const streams = new LiveStreams(resolved);
  const hosts = new HostGuard(resolved.allowedHosts);
  const guard = new Guard(resolved);
  const route = createRouter(app, { feed, options: resolved, streams, hosts, guard });
  const servers = new Set<Server>();

  const handler = (req: IncomingMessage, res: ServerResponse) => route(req, res);
  return Object.assign(handler, {
    async listen(listen: ListenOptions = {}): Promise<{ url: string; server: Server }> {
      const { port, host, insecure } = { ...LISTEN_DEFAULTS, ...listen };
      if (!isLoopback(host) && !guard.protects && !insecure)
        throw new CeleriacError(
          'CELERIAC_INVALID_OPTION',
          `The dashboard would listen on ${host} without authentication. ` +
            'Give basicAuth or token (--basic-auth, --token), ' +
            'or insecure: true (--insecure) when only trusted machines can reach it.',
        );
      hosts.allowListenHost(host);
      const server = createServer(handler);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      servers.add(server);
      feed.start();
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return { url: `http://${shown}:${address.port}/`, server };
    },
    async close(): Promise<void> {
      streams.endAll();
      guard.sessions.clear();
      await feed.close();
      await Promise.all(
        [...servers].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeIdleConnections();
            }),
        ),
      );
      servers.clear();
    },
  });
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
