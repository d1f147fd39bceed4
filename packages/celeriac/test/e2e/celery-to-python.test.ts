/**
 * A Celeriac app with `protocol: 'celery'` calls tasks of a real Python Celery worker (prefork pool,
 * for its time limits) and reads their results: arguments and keyword arguments, failures with their
 * Python type, eta, expires, retries, time limits and priorities.
 */
import { type Celeriac, kwargs, TaskFailedError, TaskRevokedError } from 'celeriac';
import { CELERY_REDIS_URL, RedisFixture } from '@celeriac/test-support';
import { celeryApp, forgetResults, PythonWorker, type CelerySide } from './support/python-celery';

describe('protocol celery: Celeriac calls Python Celery', () => {
  let fixture: RedisFixture;
  let side: CelerySide;
  let worker: PythonWorker;
  let app: Celeriac;
  const sent = new Set<string>();

  beforeAll(async () => {
    fixture = new RedisFixture('celery-to-py', CELERY_REDIS_URL);
    side = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'py' };
    worker = new PythonWorker(side, 'prefork');
    await worker.ready();
  });

  // A fresh app each test: the leak check closes what a test opened.
  beforeEach(() => {
    app = celeryApp(fixture.prefix, side);
  });

  afterEach(() => app.close());

  afterAll(async () => {
    await worker.kill();
    await forgetResults(fixture.redis(), sent);
    await fixture.cleanup();
  });

  function send<R>(...call: Parameters<Celeriac['sendTask']>) {
    const result = app.sendTask<R>(...call);
    sent.add(result.id);
    return result;
  }

  it('sends positional and keyword arguments and reads the result', async () => {
    await expect(send<number>('proj.add', [2, 3, kwargs({ z: 10 })]).get({ timeout: 20_000 })).resolves.toBe(15);
    await expect(send<number>('proj.add', [2, 3]).get({ timeout: 20_000 })).resolves.toBe(5);
  });

  it("reads a Python failure with its exception's type and message", async () => {
    const error = await send('proj.fail', ['card declined'])
      .get({ timeout: 20_000 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskFailedError);
    expect((error as TaskFailedError).remote).toMatchObject({ name: 'ValueError', message: 'card declined' });
    expect((error as TaskFailedError).remote.stack).toContain('Traceback');
  });

  it('holds a task with a countdown until its eta', async () => {
    const sentAt = Date.now();
    const result = send<number>('proj.add', [1, 1], { countdown: '1s' });
    await expect(result.get({ timeout: 20_000 })).resolves.toBe(2);
    const record = await app.backend.get(result.id);
    expect(record?.date).toBeGreaterThanOrEqual(sentAt + 1000);
  });

  it('a task past its expiry ends REVOKED on the Python worker', async () => {
    const result = send('proj.add', [1, 1], { countdown: '1500ms', expires: '500ms' });
    await expect(result.get({ timeout: 20_000 })).rejects.toBeInstanceOf(TaskRevokedError);
    await expect(result.state()).resolves.toBe('REVOKED');
  });

  it('Python retries with a countdown and the result comes after the retries', async () => {
    await expect(send<number>('proj.flaky', [2]).get({ timeout: 20_000 })).resolves.toBe(2);
  });

  it("the time limit travels in Celery's timelimit header and the Python worker enforces it", async () => {
    const error = await send('proj.slow', [30, 'late'], { timeLimit: '1s' })
      .get({ timeout: 20_000 })
      .catch((caught: unknown) => caught);
    expect((error as TaskFailedError).remote?.name).toBe('TimeLimitExceeded');
  });

  it("puts a priority into kombu's priority list for it", async () => {
    const idle = 'py-idle';
    await Promise.all([
      send('proj.add', [1, 2], { queue: idle }).sent,
      send('proj.add', [1, 2], { queue: idle, priority: 9 }).sent,
    ]);
    const redis = fixture.redis();
    await expect(redis.llen(`${side.keyPrefix}${idle}`)).resolves.toBe(1);
    await expect(redis.llen(`${side.keyPrefix}${idle}\x06\x169`)).resolves.toBe(1);
    const [raw] = await redis.lrange(`${side.keyPrefix}${idle}\x06\x169`, 0, 0);
    const payload = JSON.parse(raw as string) as {
      headers: Record<string, unknown>;
      properties: Record<string, unknown>;
    };
    expect(payload.properties).toMatchObject({
      priority: 9,
      body_encoding: 'base64',
      delivery_info: { routing_key: idle },
    });
    expect(typeof payload.properties.delivery_tag).toBe('string');
    expect(payload.headers).toMatchObject({ task: 'proj.add', lang: 'js', timelimit: [null, null] });
  });
});
