import { BrokerUnavailableError } from 'celeriac';
import { runtimeOf } from '@celeriac/core/internal';
import { RedisFixture, TestAclUser } from '@celeriac/test-support';

describe('connection loss', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('conn')));
  afterEach(() => fixture.cleanup());

  it('loses nothing when the worker connections are killed mid-run', async () => {
    // The worker's app connects as a user of its own, so that only its connections are cut (not those
    // of other suites sharing the servers).
    const user = new TestAclUser();
    await user.set('on', `>${user.password}`, `~${fixture.prefix}*`, '&*', '+@all');
    try {
      const workerApp = fixture.app({ broker: user.url, visibilityTimeout: '1s' });
      let runs = 0;
      let killed: Promise<number> | undefined;
      workerApp.task('conn.work', async (n: number) => {
        runs += 1;
        // Halfway through, cut every connection of the worker's app.
        if (runs === 500) killed = user.killConnections();
        return n;
      });
      await workerApp.worker({ concurrency: 20 }).start();
      const producer = fixture.app();
      const work = producer.task('conn.work', (n: number) => n);
      const inputs = Array.from({ length: 2_000 }, (_, n) => n);
      const results = work.delayMany(inputs.map((n) => [n] as [number]));
      await expect(Promise.all(results.map((result) => result.get({ timeout: 60_000 })))).resolves.toEqual(inputs);
      expect(await killed).toBeGreaterThan(0);
      await workerApp.close();
    } finally {
      await user.remove();
    }
  });

  it('rejects delay() with BrokerUnavailableError, after a bounded retry, when Redis is down', async () => {
    const app = fixture.app({ broker: 'redis://127.0.0.1:1/0' });
    const job = app.task('conn.down', () => 1);
    const result = job.delay();
    await expect(result.sent).rejects.toBeInstanceOf(BrokerUnavailableError);
    await expect(result).rejects.toBeInstanceOf(BrokerUnavailableError);
  });

  it('says which broker (password hidden) and why it is unreachable, for sends and reads alike', async () => {
    const app = fixture.app({ broker: 'redis://:hunter2@127.0.0.1:1/0' });
    const result = app.sendTask('conn.down', []);
    const errors = [
      await result.sent.catch((error: unknown) => error),
      await result.state().catch((error: unknown) => error),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(BrokerUnavailableError);
      expect(error).toMatchObject({
        code: 'CELERIAC_BROKER_UNAVAILABLE',
        cause: expect.objectContaining({ code: 'ECONNREFUSED' }),
      });
      expect((error as Error).message).toContain(
        'Redis at redis://:***@127.0.0.1:1/0 is unreachable (connect ECONNREFUSED 127.0.0.1:1)',
      );
      expect((error as Error).message).not.toContain('hunter2');
      expect((error as Error).message).not.toContain('maxRetriesPerRequest');
    }
  });
});

describe('result notices across a lost reply-channel connection', () => {
  let fixture: RedisFixture;
  /** A user of the test's own, so that its connections, and only those, can be cut. */
  let user: TestAclUser;
  beforeEach(async () => {
    fixture = new RedisFixture('conn-notice');
    user = new TestAclUser();
    await user.set('reset', 'on', `>${user.password}`, `~${fixture.prefix}*`, `&${fixture.prefix}*`, '+@all');
  });
  afterEach(async () => {
    try {
      await fixture.cleanup();
    } finally {
      await user.remove();
    }
  });

  it('a wait begun after the connection came back reads a task whose notice was lost meanwhile', async () => {
    const sender = fixture.app({ broker: user.url });
    const { codec } = runtimeOf(sender);
    const admin = fixture.redis();
    const worker = runtimeOf(fixture.app()).backend; // stores records as a worker in another process does
    const done = (id: string) => ({ id, state: 'SUCCESS' as const, date: Date.now(), result: id });
    // The reply channel is listened to: a first task's notice comes.
    const first = sender.sendTask<string>('conn.notice', []);
    await first.sent;
    const heard = first.get({ timeout: 10_000 });
    await worker.store([{ record: done(first.id), ttl: 60_000, replyTo: sender.clientId }]);
    await expect(heard).resolves.toBe(first.id);
    // Two more tasks finish, their notices lost (stored without one, as when the connection was
    // down then); one is awaited already, the other will be once the connection is back.
    const [awaited, later] = [sender.sendTask<string>('conn.notice', []), sender.sendTask<string>('conn.notice', [])];
    await Promise.all([awaited.sent, later.sent]);
    for (const { id } of [awaited, later])
      await admin.set(`${fixture.prefix}:result:${id}`, codec.stringify(done(id), 'a record'), 'PX', 60_000);
    const awaitedValue = awaited.get({ timeout: 10_000 });
    expect(await user.killConnections()).toBeGreaterThan(0);
    // The reconnect re-reads what is awaited: the first is answered once the connection is back...
    await expect(awaitedValue).resolves.toBe(awaited.id);
    // ...and a wait begun after that must read too, since its notice may have been lost.
    await expect(later.get({ timeout: 5_000 })).resolves.toBe(later.id);
  });
});
