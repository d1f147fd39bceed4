import { RedisFixture } from '@celeriac/test-support';

describe('bad messages on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('garbage')));
  afterEach(() => fixture.cleanup());

  it('dead-letters undecodable and unknown-task messages with a reason, and keeps serving', async () => {
    const app = fixture.app();
    const ok = app.task('garbage.ok', (n: number) => n + 1);
    await app.broker.publish([{ id: 'not-json', queue: 'default', priority: 0, idempotent: false, body: '{{{ nope' }]);
    const unknown = app.sendTask('garbage.nobody-knows', [1]);
    await unknown.sent;
    await app.worker({ concurrency: 2 }).start();
    await expect(ok.delay(1)).resolves.toBe(2);
    await expect(unknown).rejects.toMatchObject({ remote: { name: 'UnknownTaskError' } });
    const dead = await app.broker.listDead('default');
    const reasons = Object.fromEntries(dead.map((letter) => [letter.id, letter.reason]));
    expect(reasons['not-json']).toMatch(/undecodable/);
    expect(reasons[unknown.id]).toMatch(/unknown task garbage.nobody-knows/);
  });

  it('rejects messages signed with another secret without running them', async () => {
    const forger = fixture.app({ secret: 'not-the-secret' });
    let runs = 0;
    forger.task('garbage.guarded', () => ++runs);
    const forged = forger.sendTask('garbage.guarded', []);
    await forged.sent;
    const worker = fixture.app({ secret: 'the-secret' });
    const guarded = worker.task('garbage.guarded', () => ++runs);
    await worker.worker({ concurrency: 1 }).start();
    await expect(guarded.delay()).resolves.toBe(1);
    const dead = await worker.broker.listDead('default');
    expect(dead.map((letter) => letter.id)).toContain(forged.id);
    await expect(forged.state()).resolves.toBe('PENDING');
  });
});
