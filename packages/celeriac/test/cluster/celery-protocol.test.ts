/**
 * `protocol: 'celery'` on Redis Cluster: kombu has no Redis Cluster transport, so Python Celery cannot
 * share a cluster; Celeriac says so at the first call instead of writing keys no Celery would find.
 * (The Celery interop suites run on the single node when the suite runs on the cluster.)
 */
import { CLUSTER_URL, RedisFixture } from '@celeriac/test-support';

describe("protocol: 'celery' on Redis Cluster", () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('cluster-celery', CLUSTER_URL)));
  afterEach(() => fixture.cleanup());

  it('refuses a send, naming the URLs it runs on', async () => {
    const app = fixture.app({ protocol: 'celery' });
    await expect(app.sendTask('proj.add', [2, 3]).sent).rejects.toMatchObject({
      code: 'CELERIAC_INVALID_OPTION',
      message: expect.stringContaining(
        "protocol: 'celery' runs on a single Redis or on Sentinel, not on Redis Cluster",
      ),
    });
  });
});
