/**
 * Actions are CSRF-safe (the page's token in a header, nothing from another site) and refused by the
 * server in read-only mode, not only hidden; the page escapes what it is given.
 */
import { closeServed, csrfTokenOf, post, serve } from './support';

afterEach(closeServed);

describe('actions', () => {
  it('need the CSRF token of the page', async () => {
    const { app, url } = await serve();
    const missing = await post(url, 'api/queues/reports/pause', {});
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ code: 'CELERIAC_CSRF' });
    const forged = await post(url, 'api/queues/reports/pause', {}, { 'X-Celeriac-Csrf': 'guessed' });
    expect(forged.status).toBe(403);
    expect(await app.queues.isPaused('reports')).toBe(false);

    const token = await csrfTokenOf(url);
    const crossSite = await post(
      url,
      'api/queues/reports/pause',
      {},
      { 'X-Celeriac-Csrf': token, 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect(await app.queues.isPaused('reports')).toBe(false);

    const done = await post(url, 'api/queues/reports/pause', {}, { 'X-Celeriac-Csrf': token });
    expect(done.status).toBe(200);
    expect(await app.queues.isPaused('reports')).toBe(true);
  });

  it('are refused by the server when read-only', async () => {
    const { app, url } = await serve({ readOnly: true });
    const page = await (await fetch(url)).text();
    expect(page).toContain('name="celeriac-read-only" content="true"');
    const token = await csrfTokenOf(url);
    for (const [path, body] of [
      ['api/queues/reports/pause', {}],
      ['api/queues/reports/purge', {}],
      ['api/failed/retry', { all: true }],
      ['api/failed/discard', { all: true }],
      ['api/dead/requeue', { queue: 'default', all: true }],
      ['api/tasks/some-id/revoke', { terminate: true }],
      ['api/workers/w1/shutdown', {}],
      ['api/beat/remove', { name: 'x' }],
    ] as const) {
      const refused = await post(url, path, body, { 'X-Celeriac-Csrf': token });
      expect([path, refused.status]).toEqual([path, 403]);
      expect(await refused.json()).toMatchObject({ code: 'CELERIAC_READ_ONLY' });
    }
    expect(await app.queues.isPaused('reports')).toBe(false);
  });

  it('answer bad input with a 400 that says what to send', async () => {
    const { url } = await serve();
    const token = await csrfTokenOf(url);
    const neither = await post(url, 'api/failed/retry', {}, { 'X-Celeriac-Csrf': token });
    expect(neither.status).toBe(400);
    expect(await neither.json()).toMatchObject({
      code: 'CELERIAC_BAD_REQUEST',
      message: expect.stringContaining('"ids"'),
    });
    const notJson = await fetch(new URL('api/failed/retry', url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Celeriac-Csrf': token },
      body: '{oops',
    });
    expect(notJson.status).toBe(400);
    const unknown = await post(url, 'api/nothing/here', {}, { 'X-Celeriac-Csrf': token });
    expect(unknown.status).toBe(404);
  });
});

describe('the page', () => {
  it('escapes its title and allows only its own scripts', async () => {
    const { url } = await serve({ title: '<img src=x onerror=alert(1)> & "ops"' });
    const response = await fetch(url);
    const page = await response.text();
    expect(page).toContain('<title>&lt;img src=x onerror=alert(1)&gt; &amp; &quot;ops&quot;</title>');
    expect(page).not.toContain('<img src=x');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });
});
