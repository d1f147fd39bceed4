/**
 * What the Celery protocol on Redis declares it lacks, checked against what it does: a caller-chosen
 * id still waiting is published again (kombu's lists cannot tell that an id waits, as in Celery),
 * and queues cannot be paused (Python workers would go on taking from them).
 */
import { randomUUID } from 'node:crypto';
import { adminClient, deleteKeysUnder, REDIS_URL } from '@celeriac/test-support';
import { Celeriac } from 'celeriac';

describe("protocol: 'celery' capabilities", () => {
  const prefix = `celery-caps-${randomUUID()}`;
  let app: Celeriac;

  beforeEach(() => {
    app = new Celeriac({ broker: REDIS_URL, protocol: 'celery', prefix, celery: { keyPrefix: `${prefix}:` } });
  });

  afterEach(async () => {
    await app.close();
    const admin = adminClient();
    await deleteKeysUnder(admin, prefix);
    await admin.quit();
  });

  it("publishes a caller-chosen id again while it waits ('published', declared: uniqueIds false)", async () => {
    expect(app.capabilities.broker.uniqueIds).toBe(false);
    await app.sendTask('celery.caps', [1], { taskId: 'same-id' }).sent;
    await app.sendTask('celery.caps', [2], { taskId: 'same-id' }).sent;
    expect((await app.broker.stats('default')).ready).toBe(2);
  });

  it('refuses to pause or resume a queue, and lists none as paused', async () => {
    await app.sendTask('celery.caps', [1]).sent;
    await expect(app.queues.pause('default')).rejects.toMatchObject({
      code: 'CELERIAC_UNSUPPORTED_BY_TRANSPORT',
      message: expect.stringMatching(/^queue pause needs paused queues, which the Celery protocol on Redis/),
    });
    await expect(app.queues.resume('default')).rejects.toMatchObject({ code: 'CELERIAC_UNSUPPORTED_BY_TRANSPORT' });
    expect(await app.queues.list(['default'])).toEqual([
      expect.objectContaining({ name: 'default', ready: 1, paused: false }),
    ]);
  });
});
