/**
 * At-least-once across languages: a worker killed with SIGKILL while it runs a task leaves the task
 * in kombu's ack emulation, and the other side restores it after the visibility timeout (2 s here)
 * and it runs again, nothing lost. Python restores what a dead `celeriac worker` held; Celeriac
 * restores what a dead Celery worker held.
 */
import { join } from 'node:path';
import { adminClient, CELERY_REDIS_URL, untilAfter } from '@celeriac/test-support';
import { forgetResults, pythonCall, PythonWorker, type CelerySide } from './support/python-celery';
import { useE2e } from './support/worker-process';

const CELERY_APP = join(__dirname, 'fixtures/celery-app.js');
const VISIBILITY_S = 2;

describe('protocol celery: a worker killed mid-task on either side', () => {
  const sent = new Set<string>();
  const python: PythonWorker[] = [];
  const redis = adminClient(CELERY_REDIS_URL);
  afterEach(async () => {
    await Promise.all(python.splice(0).map((worker) => worker.kill()));
    await forgetResults(redis, sent);
    sent.clear();
  });
  afterAll(() => redis.quit());
  const e2e = useE2e('celery-lost', CELERY_REDIS_URL);

  function startPython(side: CelerySide): PythonWorker {
    const worker = new PythonWorker(side);
    python.push(worker);
    return worker;
  }

  /** Resolves once the only held message's lease is older than the visibility timeout. */
  async function untilLapsed(side: CelerySide): Promise<void> {
    const [, score] = await redis.zrange(`${side.keyPrefix}unacked_index`, 0, 0, 'WITHSCORES');
    expect(score).toBeDefined();
    await untilAfter(Number(score) * 1000 + VISIBILITY_S * 1000);
  }

  it('Celeriac restores a task whose Celery worker was killed, and a new Celery worker runs it', async () => {
    const { fixture } = e2e();
    const side: CelerySide = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'py', visibility: VISIBILITY_S };
    const app = fixture.app({
      protocol: 'celery',
      celery: { keyPrefix: side.keyPrefix, visibilityTimeout: VISIBILITY_S * 1000 },
      defaultQueue: side.queue,
    });
    const first = startPython(side);
    await first.ready();
    const result = app.sendTask<string>('proj.slow', [60, 'survived']);
    sent.add(result.id);
    await first.waitFor(new RegExp(`proj\\.slow\\[${result.id}\\] received`));
    // Held by the Python worker in kombu's ack emulation: counted as active in its queue.
    await expect(app.broker.stats(side.queue)).resolves.toMatchObject({ ready: 0, active: 1 });
    await first.kill('SIGKILL');
    await untilLapsed(side);
    await expect(app.broker.recoverLapsed([side.queue])).resolves.toEqual({ requeued: [result.id], dead: [] });
    startPython(side);
    await expect(result.get({ timeout: 20_000 })).resolves.toBe('survived');
  });

  it('a Celery worker restores a task whose celeriac worker was killed; a new celeriac worker runs it', async () => {
    const { fixture, workers } = e2e();
    const side: CelerySide = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'ts', visibility: VISIBILITY_S };
    const env = { CELERIAC_TEST_VISIBILITY: '1500ms', CELERIAC_TEST_CELERY_VISIBILITY: `${VISIBILITY_S}s` };
    const args = ['-A', CELERY_APP, '-Q', side.queue, '--pool', 'inline'];
    const first = workers.spawn('worker', args, env);
    await first.ready();
    const call = pythonCall(side, { task: 'ts.sleepOnce', args: [60_000, 'survived'] });
    const id = await call.id;
    sent.add(id);
    await first.started(id);
    await first.stop();
    await untilLapsed(side);
    // A Celery worker restores lapsed messages as it starts (kombu's restore_visible), of any queue.
    await startPython({ ...side, queue: 'py' }).ready();
    const peek = redis.duplicate();
    try {
      // BLMOVE from a list onto its own tail waits for the restored message without taking it.
      await expect(
        peek.blmove(`${side.keyPrefix}${side.queue}`, `${side.keyPrefix}${side.queue}`, 'RIGHT', 'RIGHT', 20),
      ).resolves.toContain(id);
    } finally {
      peek.disconnect();
    }
    await expect(redis.hlen(`${side.keyPrefix}unacked`)).resolves.toBe(0);
    await workers.spawn('worker', args, env).ready();
    await expect(call.outcome).resolves.toEqual({ state: 'SUCCESS', result: 'survived' });
  });
});
