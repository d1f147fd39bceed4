/**
 * The handler mounted in a server of one's own under a path prefix, as a framework's router or a
 * reverse proxy that strips the prefix passes it: the page, its files and its API are reached
 * under the prefix, because every link of the page is relative.
 */
import { CeleriacCore } from '@celeriac/core';
import { createDashboard, type Dashboard, type DashboardOptions } from '@celeriac/dashboard';
import { raw } from './support';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

let app: CeleriacCore;
let dashboard: Dashboard;
let server: Server;
let base: string;

/** Mounts a dashboard under /ops of a server of its own (the options of the dashboard given). */
async function mount(options: DashboardOptions = {}): Promise<void> {
  app = new CeleriacCore({ broker: 'memory://', events: true });
  dashboard = createDashboard(app, options);
  // The app's own server: `/ops/...` goes to the dashboard with the prefix taken off (and the
  // original URL kept, as Express does); the rest is the app's.
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/ops' || url.startsWith('/ops/') || url.startsWith('/ops?')) {
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
      req.url = url.slice('/ops'.length) || '/';
      return dashboard(req, res);
    }
    res.end('the app');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeEach(() => mount());

afterEach(async () => {
  await dashboard.close();
  await new Promise((resolve) => server.close(resolve));
  await app.close();
});

describe('mounted under /ops', () => {
  it('serves the page whose relative links resolve under the prefix', async () => {
    const page = await (await fetch(`${base}/ops/`)).text();
    const links = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((found) => found[1] as string);
    const imports = JSON.parse(/<script type="importmap"[^>]*>([^<]+)<\/script>/.exec(page)?.[1] ?? '{}') as {
      imports: Record<string, string>;
    };
    const files = [...links.filter((link) => !link.startsWith('data:')), ...Object.values(imports.imports)];
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      expect(file.startsWith('/')).toBe(false);
      const response = await fetch(new URL(file, `${base}/ops/`));
      expect([file, response.status]).toEqual([file, 200]);
    }
    const overview = await fetch(new URL('api/overview', `${base}/ops/`));
    expect(await overview.json()).toMatchObject({ workers: [], queues: [] });
  });

  it('sends /ops to /ops/, so that the relative links stay under the prefix', async () => {
    const response = await fetch(`${base}/ops?x=1`, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/ops/?x=1');
  });

  it('answers 404 for /metrics when no metrics handler is mounted', async () => {
    const response = await fetch(`${base}/ops/metrics`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'CELERIAC_NOT_FOUND' });
  });
});

describe('behind a reverse proxy that passes its public Host', () => {
  beforeEach(async () => {
    await dashboard.close();
    await new Promise((resolve) => server.close(resolve));
    await app.close();
    await mount({ allowedHosts: ['https://ops.example.com/ops/'], token: 'a-long-secret' });
  });

  it('serves the allowed host, takes its actions, and refuses any other host', async () => {
    const proxied = { Host: 'ops.example.com', 'X-Forwarded-Proto': 'https' };
    const moved = await raw(base, '/ops/?token=a-long-secret', { headers: proxied });
    expect(moved.status).toBe(303);
    const cookie = String(moved.headers['set-cookie']);
    // The session is scoped to the mount path, and sent over HTTPS only.
    expect(cookie).toMatch(/; Path=\/ops(;|$)/);
    expect(cookie).toMatch(/; Secure(;|$)/);
    const session = { ...proxied, Cookie: cookie.split(';')[0] ?? '' };
    const page = await raw(base, '/ops/', { headers: session });
    expect(page.status).toBe(200);
    const csrf = /name="celeriac-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const paused = await raw(base, '/ops/api/queues/reports/pause', {
      method: 'POST',
      headers: {
        ...session,
        Origin: 'https://ops.example.com',
        'Sec-Fetch-Site': 'same-origin',
        'Content-Type': 'application/json',
        'X-Celeriac-Csrf': csrf,
      },
      body: '{}',
    });
    expect(paused.status).toBe(200);
    expect(await app.queues.isPaused('reports')).toBe(true);

    for (const host of ['attacker.example', 'ops.example.com.attacker.example']) {
      const refused = await raw(base, '/ops/api/overview', { headers: { ...session, Host: host } });
      expect([host, refused.status]).toEqual([host, 403]);
    }
  });
});
