import { RedisFixture } from '@celeriac/test-support';

/** A volume test: generous on a loaded machine, where its 5,000 round trips share two cores. */
const VOLUME_TEST_TIMEOUT = 120_000;
const TASKS = 5_000;

describe('many tasks, many workers, on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('load')));
  afterEach(() => fixture.cleanup());

  it(
    'runs 5,000 tasks across 3 workers, each exactly once, with every result present',
    async () => {
      const runsByWorker = [0, 0, 0];
      for (let index = 0; index < 3; index += 1) {
        const workerApp = fixture.app();
        workerApp.task('load.square', (n: number) => {
          runsByWorker[index] = (runsByWorker[index] ?? 0) + 1;
          return n * n;
        });
        await workerApp.worker({ concurrency: 50 }).start();
      }
      const producer = fixture.app();
      const square = producer.task('load.square', (n: number) => n * n);
      const inputs = Array.from({ length: TASKS }, (_, n) => n);
      const results = square.delayMany(inputs.map((n) => [n] as [number]));
      const values = await Promise.all(results);
      expect(values).toEqual(inputs.map((n) => n * n));
      expect(runsByWorker.reduce((sum, runs) => sum + runs, 0)).toBe(TASKS);
      expect(runsByWorker.filter((runs) => runs > 0).length).toBeGreaterThan(1);
      const records = await producer.backend.getMany(results.map((result) => result.id));
      expect(records.every((record) => record?.state === 'SUCCESS')).toBe(true);
    },
    VOLUME_TEST_TIMEOUT,
  );
});
