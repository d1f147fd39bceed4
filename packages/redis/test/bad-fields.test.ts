import { TaskFailedError } from 'celeriac';
import { announce, captureLogs } from '@celeriac/test-support';
import { KeySpace } from '../src/keys';
import { injectReady, rawMessage } from '@celeriac/test-support';
import { RedisFixture } from '@celeriac/test-support';

/** Messages with one field a worker cannot use, and the start of the dead letter's reason. */
export const BAD_FIELDS: Array<[string, Record<string, unknown>, string]> = [
  [
    'a workflow whose then is a string and link a number',
    { flow: { json: { then: 'x', link: 5 } } },
    'invalid message: flow.then must be a list of workflow nodes',
  ],
  [
    'a workflow link that is a number',
    { flow: { json: { link: [5] } } },
    'invalid message: flow.link[0] must be a workflow node',
  ],
  [
    'a workflow step that is null',
    { flow: { json: { then: [null] } } },
    'invalid message: flow.then[0] must be a workflow node',
  ],
  ['an empty chord membership', { flow: { json: { member: {} } } }, 'invalid message: flow.member.group must be'],
  ['headers that are a string', { headers: 'x' }, 'invalid message: headers must be an object of strings'],
  ['a negative timeLimit', { timeLimit: -1 }, 'invalid message: timeLimit must be a number of ms >= 0'],
  ['expires that is a string', { expires: 'soon' }, 'invalid message: expires must be a time'],
  ['retries that are null', { retries: null }, 'invalid message: retries must be an integer >= 0'],
  ['a resultTtl Redis refuses', { resultTtl: 1e20 }, 'invalid message: resultTtl must be a number of ms'],
];

describe('messages with a bad field, written straight into Redis, on an inline worker', () => {
  let fixture: RedisFixture;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  beforeEach(() => {
    fixture = new RedisFixture('bad-fields');
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await fixture.cleanup();
  });

  it('dead-letters a message queued under an id other than its own, without touching the other id', async () => {
    const app = fixture.app();
    const ok = app.task('bad.ok', (n: number) => n + 1);
    const copied = rawMessage('bad.ok', [1]);
    const other = 'queued-elsewhere';
    await injectReady(fixture.redis(), fixture.prefix, 'default', other, copied.body);
    await app.worker({ concurrency: 1, logger: captureLogs().logger }).start();
    await expect(app.result(other).get({ timeout: 10_000 })).rejects.toMatchObject({
      remote: { name: 'InvalidMessageError' },
    });
    const dead = await app.broker.listDead('default');
    expect(dead).toEqual([
      expect.objectContaining({
        id: other,
        reason: expect.stringContaining(`invalid message: id must be the id it is queued under ("${other}")`),
      }),
    ]);
    await expect(app.result(copied.id).state()).resolves.toBe('PENDING');
    await expect(ok.delay(1)).resolves.toBe(2);
  });

  it.each(BAD_FIELDS)(
    'dead-letters a message with %s at once, naming the field, and keeps serving',
    async (_case, fields, reason) => {
      const app = fixture.app();
      let runs = 0;
      const ok = app.task('bad.ok', (n: number) => {
        runs += 1;
        return n + 1;
      });
      const bad = rawMessage('bad.ok', [1], fields);
      await injectReady(fixture.redis(), fixture.prefix, 'default', bad.id, bad.body);
      await app.worker({ concurrency: 2, logger: captureLogs().logger }).start();
      // The refusal is stored as the task's FAILURE: a sender waiting on it hears at once.
      const failure = await app.result(bad.id).get({ timeout: 10_000, propagate: false });
      expect(failure).toBeInstanceOf(TaskFailedError);
      expect((failure as TaskFailedError).remote).toMatchObject({ name: 'InvalidMessageError' });
      const dead = await app.broker.listDead('default');
      expect(dead).toEqual([expect.objectContaining({ id: bad.id, reason: expect.stringContaining(reason) })]);
      await expect(ok.delay(1)).resolves.toBe(2);
      expect(runs).toBe(1);
      expect(unhandled).toEqual([]);
    },
  );
});

describe('revocations written straight into Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('bad-revocations')));
  afterEach(() => fixture.cleanup());

  it('a worker starts past an unparsable stored revocation, refuses its task, ignores a bad announcement', async () => {
    const app = fixture.app();
    const keys = new KeySpace(fixture.prefix);
    const redis = fixture.redis();
    await redis.zadd(keys.revoked, Date.now() + 60_000, 'revoked-task');
    await redis.hset(keys.revokedInfo, 'revoked-task', '{not json');
    const ok = app.task('bad.ok', (n: number) => n + 1);
    const revoked = ok.applyAsync([1], { taskId: 'revoked-task' });
    await revoked.sent;
    await app.worker({ concurrency: 1, logger: captureLogs().logger }).start();
    await expect(revoked.get({ timeout: 10_000 })).rejects.toMatchObject({ code: 'CELERIAC_TASK_REVOKED' });
    for (const garbage of ['null', '5', '{"terminate":true}', '[']) await announce(redis, keys.revokeChannel, garbage);
    await expect(ok.delay(1)).resolves.toBe(2);
  });
});

describe('dead letters written straight into Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('bad-dead-info')));
  afterEach(() => fixture.cleanup());

  it('are listed with what can be read of them and stay dead, not failing the listing or the requeue', async () => {
    const app = fixture.app();
    const keys = new KeySpace(fixture.prefix).queue('default');
    const redis = fixture.redis();
    await redis.zadd(keys.dead, 1, 'garbled');
    await redis.hset(keys.deadInfo, 'garbled', '{not json');
    await expect(app.broker.listDead('default')).resolves.toEqual([
      { id: 'garbled', queue: 'default', body: '{not json', reason: 'unreadable dead-letter record', at: 0 },
    ]);
    await expect(app.broker.requeueDead('default')).resolves.toBe(0);
  });
});
