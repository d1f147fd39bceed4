/**
 * `durability: 'replicated'` on a Redis without replicas (the shared single node): sends fail with
 * `CELERIAC_NOT_REPLICATED` once the timeout passes, where `'async'` sends succeed. (On Sentinel,
 * with a replica, see packages/celeriac/test/sentinel.)
 */
import { Celeriac } from 'celeriac';
import { RedisFixture } from '@celeriac/test-support';

describe("durability: 'replicated'", () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('replicated')));
  afterEach(() => fixture.cleanup());

  it('rejects a send that no replica confirmed, saying so', async () => {
    const admin = fixture.redis();
    const replicas = /connected_slaves:(\d+)/.exec(await admin.info('replication'))?.[1];
    expect(replicas).toBe('0');
    const app = fixture.app({ durability: 'replicated', replicationTimeout: '20ms' });
    const result = app.sendTask('replicated.none', []);
    await expect(result.sent).rejects.toMatchObject({
      code: 'CELERIAC_NOT_REPLICATED',
      message: expect.stringContaining('0 of the 1 replica(s) asked for confirmed it within 20 ms'),
    });
    await expect(fixture.app().sendTask('replicated.none', []).sent).resolves.toBeUndefined();
  });

  it('is checked when the app is made', () => {
    expect(() => new Celeriac({ durability: 'sync' as 'async' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('durability') }),
    );
    expect(() => new Celeriac({ replicationTimeout: '0ms' })).toThrow(/replicationTimeout/);
  });
});
