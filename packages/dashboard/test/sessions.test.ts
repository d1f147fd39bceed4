/**
 * `?token=` opens a session: the cookie holds a random id, not the token (so other services on the
 * same host, which receive the cookie, cannot use it as a bearer token), expires, is scoped to the
 * mount path, is `Secure` under HTTPS, and ends on sign-out or when the dashboard closes.
 */
import { Sessions } from '../src/internal/sessions';
import { closeServed, raw, serve } from './support';

afterEach(closeServed);

const TOKEN = 'a-long-secret';

describe('the session cookie', () => {
  it('holds a session id that expires, scoped to the mount path, and is no bearer token', async () => {
    const { url } = await serve({ token: TOKEN, sessionTtl: '1h' });
    const moved = await raw(url, `/?token=${TOKEN}`);
    expect(moved.status).toBe(303);
    const cookie = String(moved.headers['set-cookie']);
    const [pair = ''] = cookie.split(';');
    const id = pair.slice(pair.indexOf('=') + 1);
    expect(pair).toMatch(/^celeriac_dashboard_session=/);
    expect(cookie).not.toContain(TOKEN);
    expect(cookie).toMatch(/; HttpOnly; SameSite=Strict; Path=\/; Max-Age=3600$/);

    expect((await raw(url, '/api/overview', { headers: { Cookie: pair } })).status).toBe(200);
    expect((await raw(url, '/api/overview', { headers: { Authorization: `Bearer ${id}` } })).status).toBe(401);
    expect((await raw(url, '/api/overview', { headers: { Cookie: `celeriac_dashboard_token=${TOKEN}` } })).status).toBe(
      401,
    );
  });

  it('is Secure when the browser came over HTTPS, and honours X-Forwarded-Prefix', async () => {
    const { url } = await serve({ token: TOKEN });
    const moved = await raw(url, `/?token=${TOKEN}`, {
      headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Prefix': '/celeriac/' },
    });
    expect(String(moved.headers['set-cookie'])).toMatch(/; Path=\/celeriac; Max-Age=\d+; Secure$/);
  });

  it('ends on sign-out, and when the dashboard closes', async () => {
    const { dashboard, url } = await serve({ token: TOKEN });
    const open = async () => String((await raw(url, `/?token=${TOKEN}`)).headers['set-cookie']).split(';')[0] ?? '';
    const session = await open();
    const page = await raw(url, '/', { headers: { Cookie: session } });
    const csrf = /name="celeriac-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const out = await raw(url, '/api/session/end', {
      method: 'POST',
      headers: { Cookie: session, 'X-Celeriac-Csrf': csrf, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    const after = await raw(url, '/api/overview', { headers: { Cookie: session } });
    expect(after.status).toBe(401);
    expect(JSON.parse(after.body)).toMatchObject({ message: expect.stringContaining('session ended') });

    const other = await open();
    expect((await raw(url, '/api/overview', { headers: { Cookie: other } })).status).toBe(200);
    await dashboard.close();
    const { url: again } = await dashboard.listen({ port: Number(new URL(url).port) });
    expect((await raw(again, '/api/overview', { headers: { Cookie: other } })).status).toBe(401);
  });
});

describe('Sessions', () => {
  it('forget a session once its time is up', () => {
    let now = 1_000;
    const sessions = new Sessions(60_000, () => now);
    const id = sessions.open();
    now += 59_999;
    expect(sessions.valid(id)).toBe(true);
    now += 1;
    expect(sessions.valid(id)).toBe(false);
    expect(sessions.valid('made-up')).toBe(false);
  });
});
