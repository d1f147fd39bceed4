import { TaskFailedError } from 'celeriac';
import { captureLogs } from '@celeriac/test-support';
import { injectReady, rawMessage } from '@celeriac/test-support';
import { RedisFixture } from '@celeriac/test-support';

describe('a message over maxMessageSize, written straight into Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('oversized')));
  afterEach(() => fixture.cleanup());

  it('is refused by the worker, dead-lettered with its size and the limit, and keeps only a preview', async () => {
    const app = fixture.app({ maxMessageSize: 4_096 });
    let runs = 0;
    const echo = app.task('big.echo', (text: string) => {
      runs += 1;
      return text.length;
    });
    const big = rawMessage('big.echo', ['x'.repeat(20_000)]);
    const size = Buffer.byteLength(big.body);
    await injectReady(fixture.redis(), fixture.prefix, 'default', big.id, big.body);
    await app.worker({ concurrency: 1, logger: captureLogs().logger }).start();
    const failure = await app.result(big.id).get({ timeout: 10_000, propagate: false });
    expect(failure).toBeInstanceOf(TaskFailedError);
    expect((failure as TaskFailedError).remote).toMatchObject({ code: 'CELERIAC_MESSAGE_TOO_LARGE' });
    const [letter] = await app.broker.listDead('default');
    expect(letter).toMatchObject({
      id: big.id,
      reason: `message too large: ${size} bytes, over maxMessageSize (4096 bytes)`,
      size,
    });
    expect(letter?.body).toBe(big.body.slice(0, 1_024));
    // Only a preview is left: it cannot go back to the queue.
    await expect(app.broker.requeueDead('default', [big.id])).resolves.toBe(0);
    expect(runs).toBe(0);
    await expect(echo.delay('small')).resolves.toBe(5);
  });
});
