import { join } from 'node:path';
import { REDIS_URL, RedisFixture } from '@celeriac/test-support';
import { WorkerProcess } from './support/worker-process';

describe('celeriac worker -A with a TypeScript module', () => {
  let fixture: RedisFixture;
  let worker: WorkerProcess | undefined;
  beforeEach(() => (fixture = new RedisFixture('e2e-ts')));
  afterEach(async () => {
    await worker?.stop();
    await fixture.cleanup();
  });

  it('loads a .ts app module through tsx, in the worker and in its prefork children', async () => {
    worker = new WorkerProcess(['-A', join(__dirname, 'fixtures/ts-app.ts'), '-c', '1', '--pool', 'prefork'], {
      REDIS_URL,
      CELERIAC_TEST_PREFIX: fixture.prefix,
    });
    await worker.ready();
    const client = fixture.app();
    await expect(client.sendTask('e2e.ts.multiply', [6, 7]).get({ timeout: 20_000 })).resolves.toBe(42);
  });
});
