/**
 * A script that forgets `await app.close()` ends by itself once nothing is pending (its Redis
 * connections let go of the process when quiet), and not before: an awaited result holds it open.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REDIS_URL, RedisFixture, untilTrue } from '@celeriac/test-support';

const SCRIPT = join(__dirname, 'fixtures/forgets-close.js');

/** Runs the script to its end; a script that hangs is killed after 20 s (and fails the test). */
function run(mode: string, prefix: string): Promise<{ code: number | null; stdout: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [SCRIPT, mode],
      { env: { ...process.env, REDIS_URL, CELERIAC_TEST_PREFIX: prefix }, timeout: 20_000 },
      (error, stdout) => resolve({ code: child.exitCode, stdout, killed: error?.killed === true }),
    );
  });
}

describe('a script without app.close()', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('e2e-forgotten-close')));
  afterEach(() => fixture.cleanup());

  it('ends by itself once its worker is closed and its result read', async () => {
    await expect(run('worker', fixture.prefix)).resolves.toEqual({
      code: 0,
      stdout: 'result 5\nworker closed\n',
      killed: false,
    });
  });

  it('stays while a result is awaited, until a worker elsewhere delivers it', async () => {
    const ran = run('waits', fixture.prefix);
    const app = fixture.app();
    app.task('e2e.idle.add', (a: number, b: number) => a + b);
    // Only once the script waits (its task is queued) does a worker start here.
    await untilTrue(async () => (await app.broker.stats('default')).ready === 1, 'the script to send its task');
    const worker = app.worker({ concurrency: 1 });
    await worker.start();
    await expect(ran).resolves.toEqual({ code: 0, stdout: 'result 2\n', killed: false });
    await worker.close();
  });
});
