/**
 * Guessing is slowed down: after FREE_FAILURES wrong credentials in a row, a client address is
 * refused (429, Retry-After) without its credentials being checked, for longer after each further
 * failure; other addresses are not. Basic auth passwords need the length tokens need.
 */
import { CeleriacCore } from '@celeriac/core';
import { createDashboard } from '@celeriac/dashboard';
import { FREE_FAILURES, LoginThrottle } from '../src/internal/login-throttle';
import { closeServed, raw, serve } from './support';

afterEach(closeServed);

const basic = (password: string) => ({ Authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` });

describe('wrong credentials', () => {
  it('lock a client out after a few in a row, even with the right password then', async () => {
    const { url } = await serve({ basicAuth: { user: 'ops', password: 'pa55word' } });
    for (let attempt = 0; attempt < FREE_FAILURES; attempt += 1)
      expect((await raw(url, '/api/overview', { headers: basic('guess') })).status).toBe(401);
    const locked = await raw(url, '/api/overview', { headers: basic('pa55word') });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(locked.body)).toMatchObject({ code: 'CELERIAC_TOO_MANY_ATTEMPTS' });
    // Another address is not locked out.
    const other = await raw(url, '/api/overview', { headers: basic('pa55word'), localAddress: '127.0.0.2' });
    expect(other.status).toBe(200);
  });

  it('count wrong tokens, in the URL and as bearer, but not a stale session cookie', async () => {
    const { url } = await serve({ token: 'a-long-secret' });
    for (let attempt = 0; attempt < 3 * FREE_FAILURES; attempt += 1)
      expect((await raw(url, '/api/overview', { headers: { Cookie: 'celeriac_dashboard_session=old' } })).status).toBe(
        401,
      );
    for (let attempt = 0; attempt < FREE_FAILURES; attempt += 1) {
      const headers: Record<string, string> = attempt % 2 === 0 ? { Authorization: 'Bearer wrong-secret' } : {};
      const path = attempt % 2 === 0 ? '/api/overview' : '/?token=wrong-secret';
      expect((await raw(url, path, { headers })).status).toBe(401);
    }
    const locked = await raw(url, '/api/overview', { headers: { Authorization: 'Bearer a-long-secret' } });
    expect(locked.status).toBe(429);
  });

  it('refuse a basic auth password shorter than a token may be', () => {
    const app = new CeleriacCore({ broker: 'memory://' });
    expect(() => createDashboard(app, { basicAuth: { user: 'a', password: 'b' } })).toThrow(
      /basicAuth.password must be at least 8 characters/,
    );
  });
});

describe('LoginThrottle', () => {
  it('doubles the lock with each further failure, and a success or a quiet day clears it', () => {
    let now = 0;
    const throttle = new LoginThrottle(() => now);
    for (let attempt = 0; attempt < FREE_FAILURES; attempt += 1) throttle.failed('a');
    expect(throttle.lockedFor('a')).toBe(60_000);
    throttle.failed('a');
    expect(throttle.lockedFor('a')).toBe(120_000);
    expect(throttle.lockedFor('b')).toBe(0);
    now += 120_000;
    expect(throttle.lockedFor('a')).toBe(0);
    throttle.succeeded('a');
    throttle.failed('a');
    expect(throttle.lockedFor('a')).toBe(0);
    for (let attempt = 0; attempt < FREE_FAILURES; attempt += 1) throttle.failed('c');
    now += 24 * 3_600_000 + 1;
    expect(throttle.lockedFor('c')).toBe(0);
    throttle.failed('c');
    expect(throttle.lockedFor('c')).toBe(0);
  });
});
