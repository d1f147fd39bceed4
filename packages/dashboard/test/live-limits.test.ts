/**
 * The live feed's limits: at most so many streams from one address and in all (503 with
 * Retry-After past them), and each stream ends at its lifetime, which frees its slot.
 */
import { request } from 'node:http';
import { closeServed, raw, serve } from './support';

afterEach(closeServed);

/** Opens a live stream from `localAddress`; resolves with its status once the headers came, and its closing. */
function openStream(
  url: string,
  localAddress: string,
): Promise<{ status: number; close: () => void; ended: Promise<void> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/live', localAddress, agent: false }, (res) => {
      const ended = new Promise<void>((done) => res.once('end', done).once('close', done));
      res.resume();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy(), ended });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('live streams', () => {
  it('are capped per client address and in all', async () => {
    const { url } = await serve({ maxLiveStreams: 3, maxLiveStreamsPerClient: 2 });
    const first = await openStream(url, '127.0.0.1');
    const second = await openStream(url, '127.0.0.1');
    expect([first.status, second.status]).toEqual([200, 200]);

    const third = await raw(url, '/api/live', { localAddress: '127.0.0.1' });
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBeDefined();
    expect(JSON.parse(third.body)).toMatchObject({
      code: 'CELERIAC_TOO_MANY_STREAMS',
      message: expect.stringContaining('maxLiveStreamsPerClient'),
    });

    const other = await openStream(url, '127.0.0.2');
    expect(other.status).toBe(200);
    const beyond = await raw(url, '/api/live', { localAddress: '127.0.0.3' });
    expect(beyond.status).toBe(503);
    expect(JSON.parse(beyond.body)).toMatchObject({ message: expect.stringContaining('maxLiveStreams') });

    for (const stream of [first, second, other]) stream.close();
  });

  it('end at their lifetime, and the slot is free again', async () => {
    const { url } = await serve({ liveStreamLifetime: 200, maxLiveStreamsPerClient: 1 });
    const stream = await openStream(url, '127.0.0.1');
    expect(stream.status).toBe(200);
    await stream.ended;
    const next = await openStream(url, '127.0.0.1');
    expect(next.status).toBe(200);
    next.close();
  });

  it('refuse limits that cannot work, naming them', async () => {
    await expect(serve({ maxLiveStreams: 0 })).rejects.toThrow(/maxLiveStreams/);
    await expect(serve({ liveStreamLifetime: 10 })).rejects.toThrow(/liveStreamLifetime/);
  });
});
