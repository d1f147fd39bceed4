/**
 * Workflows across languages: a Celery chain whose steps alternate between a Python Celery worker
 * and a `celeriac worker`, each step's result the first argument of the next.
 */
import { join } from 'node:path';
import { chain } from 'celeriac';
import { adminClient, CELERY_REDIS_URL } from '@celeriac/test-support';
import { forgetResults, pythonCall, PythonWorker, type CelerySide } from './support/python-celery';
import { useE2e, type WorkerProcess } from './support/worker-process';

const CELERY_APP = join(__dirname, 'fixtures/celery-app.js');

/** The ids of the tasks a celeriac worker ran (their results are deleted after the test). */
function celeriacIds(worker: WorkerProcess): string[] {
  return worker.lines.flatMap((line) => (line.state === 'SUCCESS' && typeof line.id === 'string' ? [line.id] : []));
}

describe('protocol celery: workflows across languages', () => {
  const sent = new Set<string>();
  const redis = adminClient(CELERY_REDIS_URL);
  let python: PythonWorker | undefined;
  afterEach(async () => {
    await python?.kill();
    await forgetResults(redis, sent);
    sent.clear();
  });
  afterAll(() => redis.quit());
  const e2e = useE2e('celery-canvas', CELERY_REDIS_URL);

  /** A Python worker on queue `py` and a celeriac worker on queue `ts`, both ready. */
  async function bothSides(): Promise<{ side: CelerySide; celeriac: WorkerProcess }> {
    const { fixture, workers } = e2e();
    const side: CelerySide = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'py' };
    python = new PythonWorker(side);
    const celeriac = workers.spawn('worker', ['-A', CELERY_APP, '-Q', 'ts', '--pool', 'inline']);
    await Promise.all([python.ready(), celeriac.ready()]);
    return { side, celeriac };
  }

  it('a Python chain runs its steps on both sides: Python, then Celeriac, then Python again', async () => {
    const { fixture, workers } = e2e();
    const keyPrefix = `${fixture.prefix}:kombu:`;
    const side: CelerySide = { keyPrefix, queue: 'py' };
    python = new PythonWorker(side);
    const celeriac = workers.spawn('worker', ['-A', CELERY_APP, '-Q', 'ts', '--pool', 'inline']);
    await Promise.all([python.ready(), celeriac.ready()]);
    const call = pythonCall(side, {
      chain: [
        { task: 'proj.add', args: [1, 2], queue: 'py' },
        { task: 'ts.add', args: [3], queue: 'ts' },
        { task: 'proj.add', args: [4], queue: 'py' },
      ],
    });
    for (const id of await call.ids) sent.add(id);
    await expect(call.outcome).resolves.toEqual({ state: 'SUCCESS', result: 10 });
    // The middle step ran on the celeriac worker.
    await celeriac.waitForLog((line) => line.task === 'ts.add' && line.state === 'SUCCESS', 'the ts.add step');
  });

  it('a chain built in TypeScript runs its steps on both sides, as a Celery chain', async () => {
    const { fixture, workers } = e2e();
    const side: CelerySide = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'py' };
    python = new PythonWorker(side);
    const celeriac = workers.spawn('worker', ['-A', CELERY_APP, '-Q', 'ts', '--pool', 'inline']);
    const app = fixture.app({ protocol: 'celery', celery: { keyPrefix: side.keyPrefix }, defaultQueue: 'py' });
    await Promise.all([python.ready(), celeriac.ready()]);
    const step = (task: string, args: unknown[], queue: string) =>
      app.signature({ task, args, options: { queue }, immutable: false });
    const result = chain(
      step('ts.add', [1, 2], 'ts'),
      step('proj.add', [3], 'py'),
      step('ts.add', [4], 'ts'),
    ).applyAsync();
    await expect(result.get({ timeout: 20_000 })).resolves.toBe(10);
    const pythonStep = await python.waitFor(/proj\.add\[[^\]]+\] succeeded/);
    for (const id of [...celeriacIds(celeriac), /proj\.add\[([^\]]+)\]/.exec(pythonStep)?.[1] ?? '', result.id])
      sent.add(id);
  });

  it('a Python group of tasks on both sides collects every result, in order', async () => {
    const { side } = await bothSides();
    const call = pythonCall(side, {
      group: [
        { task: 'ts.add', args: [1, 1], queue: 'ts' },
        { task: 'proj.add', args: [2, 2], queue: 'py' },
        { task: 'ts.add', args: [3, 3], queue: 'ts' },
      ],
    });
    for (const id of await call.ids) sent.add(id);
    await expect(call.outcome).resolves.toEqual({ state: 'SUCCESS', result: [2, 4, 6] });
  });

  it('a Python chord whose header runs on both sides sends its body to Python with the results in order', async () => {
    const { side } = await bothSides();
    const call = pythonCall(side, {
      chord: {
        header: [
          { task: 'ts.add', args: [1, 1], queue: 'ts' },
          { task: 'proj.add', args: [2, 2], queue: 'py' },
          { task: 'ts.add', args: [3, 3], queue: 'ts' },
        ],
        body: { task: 'proj.echo', queue: 'py' },
      },
    });
    for (const id of await call.ids) sent.add(id);
    await expect(call.outcome).resolves.toEqual({ state: 'SUCCESS', result: [2, 4, 6] });
    // The chord's keys are gone once the body was sent.
    const group = (await call.ids)[1] ?? '';
    await expect(redis.exists(`celery-taskset-meta-${group}.j`, `celery-taskset-meta-${group}.s`)).resolves.toBe(0);
  });

  it('a Python chord whose header runs on Python sends its body to a celeriac worker', async () => {
    const { side, celeriac } = await bothSides();
    const call = pythonCall(side, {
      chord: {
        header: [
          { task: 'proj.add', args: [1, 1], queue: 'py' },
          { task: 'proj.add', args: [2, 2], queue: 'py' },
        ],
        body: { task: 'ts.sum', queue: 'ts' },
      },
    });
    for (const id of await call.ids) sent.add(id);
    await expect(call.outcome).resolves.toEqual({ state: 'SUCCESS', result: 6 });
    const body = await celeriac.waitForLog((line) => line.task === 'ts.sum' && line.state === 'SUCCESS', 'the body');
    expect(body.id).toBe(await call.id);
  });

  it('a Python chord whose Celeriac header member fails fails its body with ChordError', async () => {
    const { side } = await bothSides();
    const app = e2e().fixture.app({ protocol: 'celery', celery: { keyPrefix: side.keyPrefix } });
    const call = pythonCall(side, {
      chord: {
        header: [
          { task: 'proj.add', args: [1, 1], queue: 'py' },
          { task: 'ts.fail', args: ['no'], queue: 'ts' },
        ],
        body: { task: 'proj.echo', queue: 'py' },
      },
    });
    for (const id of await call.ids) sent.add(id);
    // Python's get() on the body raises the failed member's error, as it does for an all-Python chord:
    // it polls the header while it waits, so it may raise before the last member marks the body (the
    // body's state is then still PENDING), as with Python members only.
    await expect(call.outcome).resolves.toMatchObject({ exc_type: 'TypeError' });
    await expect(app.result(await call.id).get({ timeout: 20_000 })).rejects.toMatchObject({
      remote: { name: 'ChordError', message: expect.stringContaining('TypeError') as unknown },
    });
  });
});
