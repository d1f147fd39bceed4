/**
 * Python Celery calls tasks that a `celeriac worker` (protocol 'celery') runs: `add.delay(2, 3)`
 * with keyword arguments, a result richer than JSON, failures raised in Python with their type,
 * retries, eta, expires, time limits, priorities, and a pickle message refused with an error the
 * Python caller sees.
 */
import { join } from 'node:path';
import { adminClient, CELERY_REDIS_URL } from '@celeriac/test-support';
import { celeryApp, forgetResults, pythonCall, type CelerySide, type PythonRequest } from './support/python-celery';
import { useE2e, type WorkerProcess } from './support/worker-process';

const CELERY_APP = join(__dirname, 'fixtures/celery-app.js');

describe('protocol celery: Python Celery calls a celeriac worker', () => {
  const sent = new Set<string>();
  const redis = adminClient(CELERY_REDIS_URL);
  // Declared before useE2e's: hooks run in order, and its cleanup closes the fixture's client.
  afterEach(async () => {
    await forgetResults(redis, sent);
    sent.clear();
  });
  afterAll(() => redis.quit());
  const e2e = useE2e('celery-from-py', CELERY_REDIS_URL);

  async function startWorker(): Promise<{ side: CelerySide; worker: WorkerProcess }> {
    const { fixture, workers } = e2e();
    const side: CelerySide = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'ts' };
    const worker = workers.spawn('worker', ['-A', CELERY_APP, '-Q', side.queue, '--pool', 'inline']);
    await worker.ready();
    return { side, worker };
  }

  async function call(side: CelerySide, request: PythonRequest) {
    const python = pythonCall(side, request);
    sent.add(await python.id);
    return python.outcome;
  }

  it('runs add.delay(2, 3) and its keyword arguments, and Python reads the result', async () => {
    const { side } = await startWorker();
    await expect(call(side, { task: 'ts.add', args: [2, 3] })).resolves.toEqual({ state: 'SUCCESS', result: 5 });
    await expect(call(side, { task: 'ts.add', args: [2, 3], kwargs: { z: 10 } })).resolves.toEqual({
      state: 'SUCCESS',
      result: 15,
    });
  });

  it('a result richer than JSON: Python reads its plain JSON, a Celeriac caller the value itself', async () => {
    const { side } = await startWorker();
    const python = pythonCall(side, { task: 'ts.rich', args: [] });
    const id = await python.id;
    sent.add(id);
    await expect(python.outcome).resolves.toEqual({
      state: 'SUCCESS',
      result: { at: '1970-01-01T00:00:00.000Z', tags: [['big', '1180591620717411303424']], seen: ['a'] },
    });
    const app = celeryApp(e2e().fixture.prefix, side);
    try {
      await expect(app.result(id).get({ timeout: 5_000 })).resolves.toEqual({
        at: new Date(0),
        tags: new Map([['big', 2n ** 70n]]),
        seen: new Set(['a']),
      });
    } finally {
      await app.close();
    }
  });

  it('a failure is raised in Python: a built-in type as itself, another under its name', async () => {
    const { side } = await startWorker();
    await expect(call(side, { task: 'ts.fail', args: ['bad input'] })).resolves.toMatchObject({
      state: 'FAILURE',
      exc_type: 'TypeError',
      exc_module: 'builtins',
      message: 'bad input',
    });
    await expect(call(side, { task: 'ts.decline', args: [42] })).resolves.toMatchObject({
      state: 'FAILURE',
      exc_type: 'PaymentDeclined',
      message: 'declined: 42',
    });
  });

  it("a failed task sends its link_error errback with the task's id, as a Celery worker sends one", async () => {
    const { side } = await startWorker();
    const python = pythonCall(side, {
      task: 'ts.fail',
      args: ['bad input'],
      link_error: { task: 'ts.stamp', queue: side.queue },
    });
    const id = await python.id;
    for (const made of await python.ids) sent.add(made); // the errback's too
    await expect(python.outcome).resolves.toMatchObject({
      state: 'FAILURE',
      exc_type: 'TypeError',
      errback: { ranAt: expect.any(Number), value: id },
    });
  });

  it('retries with a countdown (a new Celery message with an eta) and Python gets the final result', async () => {
    const { side } = await startWorker();
    await expect(call(side, { task: 'ts.flaky', args: [2] })).resolves.toEqual({ state: 'SUCCESS', result: 2 });
  });

  it('runs a task sent with a countdown no earlier than its eta', async () => {
    const { side } = await startWorker();
    const sentAt = Date.now();
    const outcome = await call(side, { task: 'ts.stamp', args: ['later'], options: { countdown: 1 } });
    expect(outcome.state).toBe('SUCCESS');
    expect((outcome.result as { ranAt: number }).ranAt).toBeGreaterThanOrEqual(sentAt + 1000);
  });

  it('does not run a task past its expiry: Python sees TaskRevokedError', async () => {
    const { side } = await startWorker();
    // Celery refuses to send an expiry already past: one due before the eta.
    await expect(
      call(side, { task: 'ts.add', args: [1, 1], options: { countdown: 1.5, expires: 0.5 } }),
    ).resolves.toMatchObject({ state: 'REVOKED', exc_type: 'TaskRevokedError' });
  });

  it("enforces Python's time_limit: Python sees TimeLimitExceeded", async () => {
    const { side } = await startWorker();
    await expect(
      call(side, { task: 'ts.sleep', args: [30_000, 'late'], options: { time_limit: 1 } }),
    ).resolves.toMatchObject({ state: 'FAILURE', exc_type: 'TimeLimitExceeded' });
  });

  it("takes tasks Python sent with priorities in Celery's order, 0 first", async () => {
    const { fixture, workers } = e2e();
    const side: CelerySide = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'ts' };
    // Queued while no worker runs, one in each of kombu's priority lists, then taken by one worker.
    const priorities = [6, 0, 9, 3];
    const calls = priorities.map((priority) =>
      pythonCall(side, { task: 'ts.stamp', args: [priority], options: { priority } }),
    );
    const ids = await Promise.all(calls.map((python) => python.id));
    for (const id of ids) sent.add(id);
    const worker = workers.spawn('worker', ['-A', CELERY_APP, '-Q', side.queue, '--pool', 'inline', '-c', '1']);
    const outcomes = await Promise.all(calls.map((python) => python.outcome));
    expect(outcomes.map(({ state }) => state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    const priorityOf = new Map(ids.map((id, index) => [id, priorities[index]]));
    const started = worker.lines
      .filter((line) => line.state === 'STARTED')
      .map((line) => priorityOf.get(String(line.id)));
    expect(started).toEqual([0, 3, 6, 9]);
  });

  it('refuses a pickle message without running it, and Python sees why', async () => {
    const { side } = await startWorker();
    const outcome = await call(side, { task: 'ts.add', args: [1, 1], options: { serializer: 'pickle' } });
    expect(outcome).toMatchObject({ state: 'FAILURE', exc_type: 'ContentDisallowed' });
    expect(outcome.message).toContain("task_serializer = 'json'");
    // Kept for the operator: `celeriac dead list ts` shows it with the reason.
    const [letter] = await e2e()
      .fixture.app({ protocol: 'celery', celery: { keyPrefix: side.keyPrefix } })
      .broker.listDead('ts');
    expect(letter?.reason).toContain('application/x-python-serialize');
  });
});
