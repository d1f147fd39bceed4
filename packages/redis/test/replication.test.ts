/**
 * `durability: 'replicated'` where no replica confirms: sends fail with `CELERIAC_NOT_REPLICATED`
 * once the timeout passes, where `'async'` sends succeed. The shared single node has no replica; on
 * Sentinel and Cluster the replicas of the master holding the queue are stopped meanwhile. (Sends
 * that replicas confirm: packages/celeriac/test/sentinel and packages/celeriac/test/cluster.)
 */
import { Celeriac } from 'celeriac';
import { KeySpace } from '@celeriac/redis/internal';
import { masterHolding, RedisFixture, withReplicasStopped } from '@celeriac/test-support';

describe("durability: 'replicated'", () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('replicated')));
  afterEach(() => fixture.cleanup());

  it('rejects a send that no replica confirmed, saying so', async () => {
    const master = await masterHolding(fixture.redis(), new KeySpace(fixture.prefix).queue('default').ready);
    const app = fixture.app({ durability: 'replicated', replicationTimeout: '20ms' });
    await withReplicasStopped(master, async () => {
      const result = app.sendTask('replicated.none', []);
      await expect(result.sent).rejects.toMatchObject({
        code: 'CELERIAC_NOT_REPLICATED',
        message: expect.stringContaining('0 of the 1 replica(s) asked for confirmed it within 20 ms'),
      });
      await expect(fixture.app().sendTask('replicated.none', []).sent).resolves.toBeUndefined();
    });
  });

  it('is checked when the app is made', () => {
    expect(() => new Celeriac({ durability: 'sync' as 'async' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('durability') }),
    );
    expect(() => new Celeriac({ replicationTimeout: '0ms' })).toThrow(/replicationTimeout/);
  });
});
