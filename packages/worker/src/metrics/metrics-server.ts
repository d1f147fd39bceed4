/** The HTTP endpoint of a worker's metrics: `GET /metrics` in the Prometheus text format. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CeleriacError } from '@celeriac/core';
import { hostAllowed, type AllowedHosts } from '@celeriac/core/internal';
import type { Registry } from 'prom-client';
import type { ResolvedMetricsEndpoint } from '../options';

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** The URL to scrape, with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

/** Answers a scrape with the registry's metrics (405 for methods other than GET and HEAD). */
export function answerScrape(registry: Registry, request: IncomingMessage, response: ServerResponse): void {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return void response.writeHead(405, { allow: 'GET, HEAD' }).end();
  registry.metrics().then(
    (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
    (error: unknown) => response.writeHead(500).end(`Collecting metrics failed: ${(error as Error).message}\n`),
  );
}

/**
 * Answers `/metrics` with the registry's metrics, and 404 for any other path; 403 for a `Host` it
 * does not answer (a page of another site that rebound its name to this address).
 */
function serveRegistry(
  registry: Registry,
  allowed: AllowedHosts,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (!hostAllowed(request.headers.host, allowed))
      return void response
        .writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
        .end(
          `The Host ${JSON.stringify(request.headers.host ?? '')} is not one this metrics endpoint answers. ` +
            'Scrape it by IP address or a loopback name, or allow the name with --metrics-allowed-host ' +
            '(metrics.allowedHosts).\n',
        );
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') return void response.writeHead(404).end('Not found: scrape /metrics\n');
    answerScrape(registry, request, response);
  };
}

/** Listens on `host:port`; rejects when the port is taken or the address is not this machine's. */
export function startMetricsServer(registry: Registry, endpoint: ResolvedMetricsEndpoint): Promise<MetricsServer> {
  const { host, port } = endpoint;
  const server = createServer(serveRegistry(registry, endpoint.allowedHosts));
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        new CeleriacError(
          'CELERIAC_INVALID_OPTION',
          `The metrics endpoint could not listen on ${host}:${port} (${error.code ?? error.message}). ` +
            'Pick a free port (--metrics-port, or metrics.port), or 0 for any free one.',
          { cause: error },
        ),
      );
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      const bound = (server.address() as AddressInfo).port;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${bound}/metrics`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            // A scraper's keep-alive connection would hold the close open until it timed out.
            server.closeAllConnections();
          }),
      });
    });
  });
}
