/** app.control and app.queues with in-process workers on the memory broker (the same seam as Redis). */
import { Celeriac } from 'celeriac';

describe('app.control and app.queues (memory broker)', () => {
  let app: Celeriac;
  beforeEach(() => (app = new Celeriac({ broker: 'memory://' })));
  afterEach(() => app.close());

  /** A task that runs until the test opens its gate. */
  function gated() {
    const gates = new Map<string, () => void>();
    const started = new Map<string, () => void>();
    const begun = (name: string) => new Promise<void>((resolve) => started.set(name, resolve));
    const task = app.task(
      'ops.gate',
      (name: string) =>
        new Promise<string>((resolve) => {
          gates.set(name, () => resolve(name));
          started.get(name)?.();
        }),
    );
    return { task, begun, open: (name: string) => gates.get(name)?.() };
  }

  it('inspect lists what each worker runs and holds; ping and registered answer per worker', async () => {
    const { task, begun, open } = gated();
    const running = begun('a');
    const a = task.delay('a');
    const b = task.delay('b');
    await Promise.all([a.sent, b.sent]);
    // One slot and one prefetched: the first reservation takes both, a runs and b waits.
    const one = app.worker({ hostname: 'one', concurrency: 1, prefetch: 1, shutdownTimeout: '100ms' });
    await one.start();
    await running;
    const [active] = await app.control.inspect('active');
    expect(active).toEqual({
      hostname: 'one',
      ok: true,
      value: [
        expect.objectContaining({
          id: a.id,
          name: 'ops.gate',
          queue: 'default',
          args: '["a"]',
          started: expect.any(Number),
        }),
      ],
    });
    await expect(app.control.inspect('reserved')).resolves.toEqual([
      { hostname: 'one', ok: true, value: [expect.objectContaining({ id: b.id, args: '["b"]' })] },
    ]);
    await expect(app.control.inspect('registered')).resolves.toEqual([
      { hostname: 'one', ok: true, value: ['ops.gate'] },
    ]);
    await expect(app.control.ping({ destination: 'nobody', timeout: 20 })).resolves.toEqual([]);
    // The grown slot starts the prefetched task while the first still runs.
    const second = begun('b');
    const grown = await app.control.poolGrow(1, { destination: 'one' });
    expect(grown).toEqual([{ hostname: 'one', ok: true, value: { concurrency: 2 } }]);
    await second;
    open('a');
    open('b');
    await expect(Promise.all([a, b])).resolves.toEqual(['a', 'b']);
  });

  it('a paused queue holds its tasks until resumed; cancel-/add-consumer change what a worker reserves', async () => {
    const add = app.task('ops.add', (x: number, y: number) => x + y);
    const worker = app.worker({ hostname: 'w', queues: ['default', 'extra'] });
    await worker.start();
    await app.queues.pause('default');
    const held = add.delay(1, 2);
    await held.sent;
    await expect(app.control.inspect('active')).resolves.toEqual([{ hostname: 'w', ok: true, value: [] }]);
    await expect(app.queues.list()).resolves.toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'default', ready: 1, paused: true })]),
    );
    await app.queues.resume('default');
    await expect(held).resolves.toBe(3);

    await expect(app.control.cancelConsumer('extra')).resolves.toEqual([
      { hostname: 'w', ok: true, value: { queues: ['default'] } },
    ]);
    const parked = add.applyAsync([2, 2], { queue: 'extra' });
    await expect(add.delay(1, 1)).resolves.toBe(2);
    await expect(app.broker.stats('extra')).resolves.toMatchObject({ ready: 1 });
    await app.control.addConsumer('extra');
    await expect(parked).resolves.toBe(4);
  });

  it('lists each queue with the tasks kept in its failed-task registry', async () => {
    const fails = app.task('ops.fails', () => {
      throw new Error('out of stock');
    });
    const worker = app.worker({ hostname: 'w', queues: ['default', 'extra'] });
    await worker.start();
    await expect(fails.delay()).rejects.toThrow('out of stock');
    // Its record is stored before it is acked into the registry; a closed worker has settled it.
    await worker.close();
    await expect(app.queues.list(['extra'])).resolves.toEqual([
      expect.objectContaining({ name: 'default', ready: 0, failed: 1 }),
      expect.objectContaining({ name: 'extra', failed: 0 }),
    ]);
    await app.failed.discard('all');
    await expect(app.queues.list()).resolves.toEqual([
      expect.objectContaining({ name: 'default', failed: 0 }),
      expect.objectContaining({ name: 'extra', failed: 0 }),
    ]);
  });

  it('shutdown stops the worker gracefully', async () => {
    const worker = app.worker({ hostname: 'w' });
    await worker.start();
    await expect(app.control.shutdown()).resolves.toEqual([
      { hostname: 'w', ok: true, value: { ok: 'shutting down' } },
    ]);
    await worker.stopped;
    expect(worker.state).toBe('closed');
  });
});
