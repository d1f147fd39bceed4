/**
 * Who may use the dashboard: basic auth and tokens guard every route (page, files, API, live feed,
 * metrics), and listen() refuses a non-loopback address without them unless insecure.
 */
import { CeleriacCore } from '@celeriac/core';
import { createDashboard } from '@celeriac/dashboard';
import { closeServed, serve } from './support';

afterEach(closeServed);

const ROUTES = ['', 'assets/app.js', 'vendor/preact.mjs', 'api/overview', 'api/tasks', 'api/live', 'metrics'];

describe('basic auth', () => {
  it('refuses every route without the password, and serves them with it', async () => {
    const metrics = jest.fn((_req: unknown, res: import('node:http').ServerResponse) => res.end('up 1\n'));
    const { url } = await serve({ basicAuth: { user: 'ops', password: 'pa55word' }, metrics });
    const good = { Authorization: `Basic ${Buffer.from('ops:pa55word').toString('base64')}` };
    const bad = { Authorization: `Basic ${Buffer.from('ops:guess').toString('base64')}` };
    for (const route of ROUTES) {
      const refused = await fetch(new URL(route, url), { headers: bad });
      expect([route, refused.status]).toEqual([route, 401]);
      expect(refused.headers.get('www-authenticate')).toContain('Basic');
      expect(await refused.json()).toMatchObject({ code: 'CELERIAC_UNAUTHORIZED' });
      const anonymous = await fetch(new URL(route, url));
      expect([route, anonymous.status]).toEqual([route, 401]);
    }
    expect(metrics).not.toHaveBeenCalled();
    for (const route of ROUTES) {
      const controller = new AbortController();
      const allowed = await fetch(new URL(route, url), { headers: good, signal: controller.signal });
      expect([route, allowed.status]).toEqual([route, 200]);
      controller.abort(); // the live feed never ends by itself
    }
    expect(metrics).toHaveBeenCalledTimes(1);
  });
});

describe('token', () => {
  it('takes a bearer header, or ?token= once, which it moves into an HTTP-only same-site cookie', async () => {
    const { url } = await serve({ token: 'a-long-secret' });
    expect((await fetch(new URL('api/overview', url))).status).toBe(401);
    expect((await fetch(new URL('api/overview?token=wrong-secret', url))).status).toBe(401);
    const bearer = await fetch(new URL('api/overview', url), { headers: { Authorization: 'Bearer a-long-secret' } });
    expect(bearer.status).toBe(200);

    const moved = await fetch(new URL('?token=a-long-secret', url), { redirect: 'manual' });
    expect(moved.status).toBe(303);
    expect(moved.headers.get('location')).toBe('./');
    const cookie = moved.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = await fetch(new URL('api/overview', url), { headers: { Cookie: cookie.split(';')[0] ?? '' } });
    expect(withCookie.status).toBe(200);
  });
});

describe('listen', () => {
  it('binds 127.0.0.1 by default', async () => {
    const { url } = await serve();
    expect(new URL(url).hostname).toBe('127.0.0.1');
  });

  it('refuses another address without auth, unless insecure', async () => {
    const app = new CeleriacCore({ broker: 'memory://' });
    const open = createDashboard(app);
    try {
      await expect(open.listen({ host: '0.0.0.0', port: 0 })).rejects.toMatchObject({
        code: 'CELERIAC_INVALID_OPTION',
        message: expect.stringContaining('--insecure'),
      });
      await expect(open.listen({ host: '0.0.0.0', port: 0, insecure: true })).resolves.toMatchObject({
        url: expect.stringMatching(/^http:\/\/0\.0\.0\.0:\d+\/$/),
      });
      const guarded = createDashboard(app, { token: 'a-long-secret' });
      await expect(guarded.listen({ host: '0.0.0.0', port: 0 })).resolves.toBeDefined();
      await guarded.close();
    } finally {
      await open.close();
      await app.close();
    }
  });

  it('rejects options that cannot work, naming them', () => {
    const app = new CeleriacCore({ broker: 'memory://' });
    expect(() => createDashboard(app, { token: 'short' })).toThrow(/at least 8 characters/);
    expect(() => createDashboard(app, { token: 'a-long-secret', basicAuth: { user: 'a', password: 'b' } })).toThrow(
      /basicAuth or token, not both/,
    );
    expect(() => createDashboard(app, { basicAuth: { user: '', password: 'b' } })).toThrow(/non-empty user/);
  });
});
