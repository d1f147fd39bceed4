/**
 * DNS rebinding: a page of another site that rebinds its own name to 127.0.0.1 reaches the dashboard
 * with that name in `Host` (and `Origin`). Such requests are refused on every route, and actions
 * from another origin even with the page's CSRF token; loopback names, IP addresses and the hosts
 * the operator allowed are answered.
 */
import { createServer, type ServerResponse } from 'node:http';
import { closeServed, csrfTokenOf, raw, serve } from './support';

afterEach(closeServed);

const ROUTES = [
  '/',
  '/index.html',
  '/assets/app.js',
  '/vendor/preact.mjs',
  '/api/overview',
  '/api/tasks',
  '/api/live',
  '/metrics',
];
const metrics = (_req: unknown, res: ServerResponse) => res.end('up 1\n');

describe('the Host of a request', () => {
  it('is refused on every route when it is a foreign name, with a message naming --allowed-host', async () => {
    const { url } = await serve({ metrics });
    const port = new URL(url).port;
    for (const path of ROUTES) {
      const refused = await raw(url, path, { headers: { Host: `attacker.example:${port}` } });
      expect([path, refused.status]).toEqual([path, 403]);
      expect(JSON.parse(refused.body)).toMatchObject({
        code: 'CELERIAC_HOST_NOT_ALLOWED',
        message: expect.stringContaining('--allowed-host'),
      });
    }
    // Node's server refuses an HTTP/1.1 request without Host itself (400); the dashboard would too.
    const missing = await raw(url, '/api/overview', { noHost: true });
    expect([400, 403]).toContain(missing.status);
  });

  it('refuses an action from a foreign Host even with the page token', async () => {
    const { app, url } = await serve();
    const port = new URL(url).port;
    const token = await csrfTokenOf(url);
    const attempt = await raw(url, '/api/queues/xssq/pause', {
      method: 'POST',
      headers: {
        Host: `attacker.example:${port}`,
        Origin: `http://attacker.example:${port}`,
        'x-celeriac-csrf': token,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(attempt.status).toBe(403);
    expect(await app.queues.isPaused('xssq')).toBe(false);
  });

  it('answers loopback names and IP addresses, with their port', async () => {
    const { url } = await serve();
    const port = new URL(url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'app.localhost', '10.1.2.3:8080']) {
      const answer = await raw(url, '/api/overview', { headers: { Host: host } });
      expect([host, answer.status]).toEqual([host, 200]);
    }
  });

  it('answers the hosts allowed: a name on any port, a name and port, a domain, the host of a URL', async () => {
    const { url } = await serve({
      allowedHosts: ['ops.example.com', 'grafana.internal:8443', '.corp.example', 'https://public.example.org/ops/'],
    });
    for (const [host, status] of [
      ['ops.example.com', 200],
      ['OPS.example.com:5555', 200],
      ['grafana.internal:8443', 200],
      ['grafana.internal:9000', 403],
      ['corp.example', 200],
      ['a.b.corp.example', 200],
      ['evilcorp.example', 403],
      ['public.example.org', 200],
      ['ops.example.com.attacker.example', 403],
    ] as const) {
      const answer = await raw(url, '/api/overview', { headers: { Host: host } });
      expect([host, answer.status]).toEqual([host, status]);
    }
  });

  it('answers the name listen() binds', async () => {
    const { dashboard } = await serve();
    const { url } = await dashboard.listen({ port: 0, host: 'localhost' });
    const answer = await raw(url, '/api/overview', { headers: { Host: 'localhost' } });
    expect(answer.status).toBe(200);
  });

  it('refuses allowedHosts entries that are not host names, naming the option', async () => {
    await expect(serve({ allowedHosts: ['ops.example.com/path'] })).rejects.toMatchObject({
      code: 'CELERIAC_INVALID_OPTION',
      message: expect.stringContaining('allowedHosts'),
    });
  });
});

describe('the Origin of an action', () => {
  it('is refused from another origin even with the right token and an allowed Host', async () => {
    const { app, url } = await serve();
    const token = await csrfTokenOf(url);
    const post = (headers: Record<string, string>) =>
      raw(url, '/api/queues/reports/pause', {
        method: 'POST',
        headers: { 'x-celeriac-csrf': token, 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    for (const headers of [
      { Origin: 'http://attacker.example:5555' } as Record<string, string>,
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'cross-site', Origin: url.slice(0, -1) },
    ]) {
      const refused = await post(headers);
      expect([headers, refused.status]).toEqual([headers, 403]);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'CELERIAC_CSRF' });
    }
    expect(await app.queues.isPaused('reports')).toBe(false);

    const done = await post({ Origin: url.slice(0, -1), 'Sec-Fetch-Site': 'same-origin' });
    expect(done.status).toBe(200);
    expect(await app.queues.isPaused('reports')).toBe(true);
  });
});

describe('a server of its own that the handler is mounted in', () => {
  it('has the same checks', async () => {
    const { dashboard } = await serve({ allowedHosts: ['ops.example.com'] });
    const server = createServer((req, res) => dashboard(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as import('node:net').AddressInfo;
      const base = `http://127.0.0.1:${port}/`;
      expect((await raw(base, '/api/overview', { headers: { Host: 'attacker.example' } })).status).toBe(403);
      expect((await raw(base, '/api/overview', { headers: { Host: 'ops.example.com' } })).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
