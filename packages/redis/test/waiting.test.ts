import { listenTo, RedisFixture } from '@celeriac/test-support';

describe('waiting on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('waiting')));
  afterEach(() => fixture.cleanup());

  it('a wait that starts after the task finished still gets the result', async () => {
    const app = fixture.app();
    const add = app.task('waiting.add', (a: number, b: number) => a + b);
    await app.worker({ concurrency: 1 }).start();
    await expect(add.delay(1, 1)).resolves.toBe(2); // the reply channel is listened to from here on
    const late = add.delay(2, 2);
    await fixture.app().result(late.id).get({ timeout: 5_000 }); // it has finished
    await expect(late.get({ timeout: 5_000 })).resolves.toBe(4);
  });

  it('a second wait on a finished task (same handle, or after another waiter took the notice) gets it', async () => {
    const app = fixture.app();
    const add = app.task('waiting.add', (a: number, b: number) => a + b);
    await app.worker({ concurrency: 1 }).start();
    await expect(add.delay(0, 0)).resolves.toBe(0); // the reply channel is listened to from here on
    const sum = add.delay(1, 2);
    await expect(sum.get({ timeout: 5_000 })).resolves.toBe(3);
    await expect(sum.get({ timeout: 5_000 })).resolves.toBe(3);
    // A dependency waited on by an in-process worker, then by its own handle.
    const first = add.delay(2, 2);
    const dependent = add.applyAsync([1, 1], { dependsOn: [first] });
    await expect(dependent.get({ timeout: 5_000 })).resolves.toBe(2);
    await expect(first.get({ timeout: 5_000 })).resolves.toBe(4);
  });

  it("a worker in the sender's process tells its waits itself: nothing is published on its reply channel", async () => {
    const app = fixture.app();
    const add = app.task('waiting.add', (a: number, b: number) => a + b);
    await app.worker({ concurrency: 4 }).start();
    const heard: string[] = [];
    const other = fixture.app();
    let otherHeard!: () => void;
    const untilOtherHeard = new Promise<void>((resolve) => (otherHeard = resolve));
    const channels = [`${fixture.prefix}:reply:${app.clientId}`, `${fixture.prefix}:reply:${other.clientId}`];
    const listener = await listenTo(fixture.redis(), channels, (channel) => {
      heard.push(channel);
      if (channel.endsWith(other.clientId)) otherHeard();
    });
    const sums = add.delayMany(Array.from({ length: 20 }, (_, i) => [i, i] as [number, number]));
    await expect(Promise.all(sums)).resolves.toEqual(Array.from({ length: 20 }, (_, i) => 2 * i));
    // Another app's task, run by the same worker, is published to that app's channel as before.
    // Anything published on the first channel went out before that task was even sent; the flush
    // hears it (on a cluster each channel is heard on its own master, so arrival order says nothing).
    await expect(other.sendTask('waiting.add', [1, 2])).resolves.toBe(3);
    await untilOtherHeard;
    await listener.flush();
    await listener.close();
    expect(heard).toEqual([`${fixture.prefix}:reply:${other.clientId}`]);
  });

  it('an idle wait ended by its own due-time timer is not an error, and takes the task that came due', async () => {
    const app = fixture.app();
    const broker = app.broker;
    const controller = new AbortController();
    await broker.publish([
      { id: 'soon', queue: 'default', priority: 0, idempotent: false, eta: Date.now() + 50, body: 'x' },
    ]);
    // A fresh connection: a wait ended by its own timer must not fail. Like a worker, wait again
    // after an empty wake-up (allowed: the clocks of this process and Redis differ by a little).
    let taken: Array<{ id: string }> = [];
    for (let attempt = 0; attempt < 5 && taken.length === 0; attempt += 1) {
      taken = await broker.waitAndReserve!(['default'], 1, controller.signal);
      if (taken.length === 0) taken = await broker.reserve(['default'], 1);
    }
    expect(taken).toEqual([expect.objectContaining({ id: 'soon', deliveries: 1 })]);
  });

  it('a reservation tells whether it left the queue empty, also when it took exactly what was there', async () => {
    const broker = fixture.app().broker;
    const publish = (ids: string[]) =>
      broker.publish(ids.map((id) => ({ id, queue: 'default', priority: 0, idempotent: false, body: 'x' })));
    await publish(['a', 'b', 'c']);
    expect((await broker.reserve(['default'], 2)).map((delivery) => delivery.id)).toEqual(['a', 'b']);
    expect(broker.drained?.(['default'])).toBe(false); // 'c' is still there
    expect((await broker.reserve(['default'], 2)).map((delivery) => delivery.id)).toEqual(['c']);
    expect(broker.drained?.(['default'])).toBe(true); // fewer than asked for: nothing is left
    await publish(['d', 'e']);
    expect((await broker.reserve(['default'], 2)).map((delivery) => delivery.id)).toEqual(['d', 'e']);
    expect(broker.drained?.(['default'])).toBe(true); // as many as asked for, and nothing left
  });
  it('waits begun in one tick on tasks that finished elsewhere are answered together by one read', async () => {
    const sender = fixture.app();
    const double = sender.task('waiting.double', (n: number) => n * 2);
    await sender.worker({ concurrency: 10 }).start();
    const ids = Array.from({ length: 300 }, (_, n) => n);
    const handles = double.delayMany(ids.map((n) => [n] as [number]));
    await Promise.all(handles);
    // Another process's app: no notice of these tasks reaches it, so each wait must read.
    const bystander = fixture.app();
    const reads = jest.spyOn(bystander.backend, 'getMany');
    const values = await Promise.all(
      handles.map((handle) => bystander.result<number>(handle.id).get({ timeout: 5_000 })),
    );
    expect(values).toEqual(ids.map((n) => n * 2));
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('one of several waits on a task ended by its signal before it was checked leaves the others waiting', async () => {
    const app = fixture.app();
    const add = app.task('waiting.add', (a: number, b: number) => a + b);
    const sum = add.delay(2, 3);
    await sum.sent;
    const controller = new AbortController();
    const reason = new Error('gave up');
    const first = app.backend.waitFor(sum.id);
    const ended = app.backend.waitFor(sum.id, controller.signal);
    const third = app.backend.waitFor(sum.id);
    controller.abort(reason); // in the same tick: before the waits were checked
    await expect(ended).rejects.toBe(reason);
    await app.worker({ concurrency: 1 }).start();
    await expect(first).resolves.toMatchObject({ id: sum.id, state: 'SUCCESS', result: 5 });
    await expect(third).resolves.toMatchObject({ id: sum.id, state: 'SUCCESS', result: 5 });
  });
});
