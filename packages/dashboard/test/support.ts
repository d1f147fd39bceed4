/** Starts a dashboard of an in-memory app on a free loopback port, and closes both after the test. */
import { CeleriacCore } from '@celeriac/core';
import { createDashboard, type Dashboard, type DashboardOptions } from '@celeriac/dashboard';
import { request } from 'node:http';

/** A running dashboard and what a test needs to reach it. */
export interface Served {
  readonly app: CeleriacCore;
  readonly dashboard: Dashboard;
  readonly url: string;
}

const opened: Served[] = [];

/** A dashboard of a fresh `memory://` app with events on, listening on 127.0.0.1 and a free port. */
export async function serve(options: DashboardOptions = {}): Promise<Served> {
  const app = new CeleriacCore({ broker: 'memory://', events: true });
  const dashboard = createDashboard(app, { sampleEvery: 60_000, ...options });
  const { url } = await dashboard.listen({ port: 0 });
  const served = { app, dashboard, url };
  opened.push(served);
  return served;
}

/** Closes every dashboard and app `serve` opened (call in `afterEach`). */
export async function closeServed(): Promise<void> {
  for (const { app, dashboard } of opened.splice(0)) {
    await dashboard.close();
    await app.close();
  }
}

/** The page's CSRF token, read from the page as the browser would. */
export async function csrfTokenOf(url: string, headers: Record<string, string> = {}): Promise<string> {
  const page = await (await fetch(url, { headers })).text();
  const token = /name="celeriac-csrf" content="([^"]+)"/.exec(page)?.[1];
  if (token === undefined) throw new Error(`No CSRF token in the page: ${page.slice(0, 300)}`);
  return token;
}

/** POSTs an action as the page does. */
export function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(new URL(path, url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** An answer read by {@link raw}: status, headers and the body as text. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: import('node:http').IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A request sent as given (fetch will not send a foreign `Host`, nor a path such as `//`): the path
 * and headers go out unchanged, from `localAddress` when set. With `headersOnly`, it resolves at
 * the status line and drops the connection (for a live feed, which never ends by itself).
 */
export function raw(
  url: string,
  path: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    localAddress?: string;
    headersOnly?: boolean;
    /** Send no `Host` header at all (as HTTP/1.0 clients may). */
    noHost?: boolean;
  } = {},
): Promise<RawAnswer> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname.replace(/^\[|\]$/g, ''),
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        agent: false,
        setHost: options.noHost !== true,
      },
      (res) => {
        if (options.headersOnly) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
          res.destroy();
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
