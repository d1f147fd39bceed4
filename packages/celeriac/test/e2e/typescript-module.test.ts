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

  it.each(['prefork', 'inline'])(
    'a failure of an app compiled with source maps points at its .ts line (%s pool)',
    async (pool) => {
      const mapped = join(__dirname, 'fixtures/source-mapped');
      worker = new WorkerProcess(['-A', join(mapped, 'out/app.js'), '-c', '1', '--pool', pool], {
        REDIS_URL,
        CELERIAC_TEST_PREFIX: fixture.prefix,
      });
      await worker.ready();
      const failed = fixture.app().sendTask('e2e.mapped.explode', ['here']);
      await expect(failed.get({ timeout: 20_000 })).rejects.toThrow('exploded: here');
      const record = await failed.record();
      // The throw is on line 11 of src/app.ts (line 12 of out/app.js).
      expect(record?.error?.stack).toContain(`${join(mapped, 'src/app.ts')}:11:`);
    },
  );
});
