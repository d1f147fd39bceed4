/**
 * Request targets the dashboard refuses before anything else (400): a path that does not start with
 * a single `/` names nothing it serves, and must not be read as another path (or crash the parser).
 * `HEAD /api/live` answers its headers at once instead of hanging.
 */
import { closeServed, raw, serve } from './support';

afterEach(closeServed);

describe('request paths', () => {
  it('answer 400 unless they start with a single "/", before authentication', async () => {
    const { url } = await serve({ token: 'a-long-secret' });
    for (const path of ['//', '///', '//[', '//a/api/overview', '/\\evil.example/', '*']) {
      const answer = await raw(url, path, { headers: { Authorization: 'Bearer a-long-secret' } });
      expect([path, answer.status]).toEqual([path, 400]);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'CELERIAC_BAD_REQUEST' });
    }
    for (const path of ['//', '//a/api/overview']) expect((await raw(url, path)).status).toBe(400);
    const served = await raw(url, '/api/overview', { headers: { Authorization: 'Bearer a-long-secret' } });
    expect(served.status).toBe(200);
  });
});

describe('HEAD /api/live', () => {
  it('answers the event stream headers and ends', async () => {
    const { url } = await serve();
    const answer = await raw(url, '/api/live', { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('text/event-stream');
  });
});
