import { chord, group, type GroupResult } from 'celeriac';
import { RedisFixture } from '@celeriac/test-support';

/** A volume test: generous on a loaded machine, where its 10,000 header tasks share two cores. */
const VOLUME_TEST_TIMEOUT = 120_000;

describe('chords on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('chord')));
  afterEach(() => fixture.cleanup());

  it(
    'a chord of 10,000 header tasks over 2 workers runs its callback once, with a counter of one bit a member',
    async () => {
      let callbacks = 0;
      let groupId = '';
      const counterSizes: number[] = [];
      for (let index = 0; index < 2; index += 1) {
        const workerApp = fixture.app();
        workerApp.task('chord.square', (n: number) => n * n);
        workerApp.task('chord.total', async (values: number[]) => {
          callbacks += 1;
          // The counter is still there (it expires with the results): measure what it costs.
          counterSizes.push(await fixture.redis().strlen(`${fixture.prefix}:group:${groupId}`));
          return values.reduce((sum, value) => sum + value, 0);
        });
        await workerApp.worker({ concurrency: 50 }).start();
      }
      const producer = fixture.app();
      const square = producer.task('chord.square', (n: number) => n * n);
      const total = producer.task('chord.total', (values: number[]) => values.reduce((sum, value) => sum + value, 0));
      const size = 10_000;
      const result = chord(
        Array.from({ length: size }, (_, n) => square.s(n)),
        total.s(),
      ).applyAsync();
      groupId = (result.parent as GroupResult).id;
      const expected = Array.from({ length: size }, (_, n) => n * n).reduce((sum, value) => sum + value, 0);
      await expect(result).resolves.toBe(expected);
      expect(callbacks).toBe(1);
      expect(counterSizes).toEqual([size / 8]);
    },
    VOLUME_TEST_TIMEOUT,
  );

  it('group results are read from another process by the group id', async () => {
    const workerApp = fixture.app();
    workerApp.task('chord.square', (n: number) => n * n);
    await workerApp.worker().start();
    const producer = fixture.app();
    const square = producer.task('chord.square', (n: number) => n * n);
    const sent = group([square.s(2), square.s(3)]).applyAsync();
    await sent;
    const reader = fixture.app();
    expect(await reader.groupResult(sent.id, 2)).toEqual([4, 9]);
    expect(await reader.groupResult(sent.id, 2).completedCount()).toBe(2);
  });
});
