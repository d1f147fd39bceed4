import { useE2e } from './support/worker-process';

/**
 * A worker sweeps the lapsed leases of the queues it consumes now, not of those it started with: a
 * queue it gained with `control add-consumer` is swept too, so a task on it whose worker died comes
 * back even when no other worker consumed that queue from the start.
 */
describe('lease recovery on a queue added at run time', () => {
  const e2e = useE2e('e2e-sweep');

  it('a worker that gained queue qb by add-consumer recovers and runs the task of a dead worker on qb', async () => {
    const { fixture, workers } = e2e();
    const dying = workers.start(['-Q', 'qb', '-c', '1'], { CELERIAC_TEST_VISIBILITY: '1s' });
    await dying.ready();
    const survivorApp = fixture.app({ visibilityTimeout: '1s' });
    survivorApp.task('e2e.sleep', () => 'recovered by the survivor');
    const survivor = survivorApp.worker({ queues: ['qa'], concurrency: 1, hostname: 'survivor@test' });
    await survivor.start();
    const task = fixture.app().sendTask<string>('e2e.sleep', [60_000], { queue: 'qb' });
    await dying.started(task.id);
    dying.signal('SIGKILL');
    await dying.exited;
    await survivorApp.control.addConsumer('qb', { destination: ['survivor@test'] });
    await expect(task.get({ timeout: 20_000 })).resolves.toBe('recovered by the survivor');
    await survivor.close();
  });
});
