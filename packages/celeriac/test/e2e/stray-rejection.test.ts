import { useE2e } from './support/worker-process';

describe('celeriac worker: a rejected promise that a task leaves behind', () => {
  const e2e = useE2e('e2e-stray-rejection');

  it('--pool inline: is logged with its stack, and the worker keeps serving', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'inline']);
    await worker.ready();
    const client = fixture.app();
    await expect(client.sendTask('e2e.strayRejection', ['kept']).get({ timeout: 20_000 })).resolves.toBe('kept');
    const logged = await worker.waitForLog((line) => /nobody awaited it/.test(String(line.msg)), 'the stray rejection');
    expect(logged).toMatchObject({
      error: expect.objectContaining({ message: 'stray rejection', stack: expect.stringContaining('E2eFailure') }),
    });
    await expect(client.sendTask('e2e.add', [1, 1]).get({ timeout: 20_000 })).resolves.toBe(2);
    expect(worker.child.exitCode).toBeNull();
  });
});
