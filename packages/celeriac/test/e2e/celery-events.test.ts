/**
 * Celery events from a `celeriac worker` with protocol 'celery' and events on: a Python receiver
 * (`app.events.Receiver`, what `celery events` and Flower use) hears worker-online, heartbeats and
 * worker-offline, and each task's received, started, succeeded, failed, retried and revoked events,
 * and Celery's own State follows the tasks through them.
 */
import { join } from 'node:path';
import { type Celeriac } from 'celeriac';
import { RedisFixture } from '@celeriac/test-support';
import {
  celeryApp,
  forgetResults,
  PythonEventReceiver,
  type CelerySide,
  type SeenEvent,
} from './support/python-celery';
import { WorkerProcesses, type WorkerProcess } from './support/worker-process';

const CELERY_APP = join(__dirname, 'fixtures/celery-app.js');

const types = (seen: SeenEvent[]) => seen.map(({ event }) => event.type);

describe('protocol celery: Celery events from a celeriac worker', () => {
  let fixture: RedisFixture;
  let side: CelerySide;
  let receiver: PythonEventReceiver;
  let workers: WorkerProcesses;
  let celeriac: WorkerProcess;
  let app: Celeriac;
  const sent = new Set<string>();

  beforeAll(async () => {
    fixture = new RedisFixture('celery-events');
    side = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'ts' };
    receiver = new PythonEventReceiver(side);
    await receiver.ready;
    workers = new WorkerProcesses(fixture.prefix);
    celeriac = workers.spawn('worker', ['-A', CELERY_APP, '-Q', 'ts', '--pool', 'inline'], {
      CELERIAC_TEST_EVENTS: '1',
    });
    await celeriac.ready();
  });

  beforeEach(() => {
    app = celeryApp(fixture.prefix, side);
  });

  afterEach(() => app.close());

  afterAll(async () => {
    await Promise.all([receiver.kill(), workers.stopAll()]);
    await forgetResults(fixture.redis(), sent);
    await fixture.cleanup();
  });

  /** Sends a task to the celeriac worker and waits for its Celery event of type `last`. */
  async function run(task: string, args: unknown[], last: string, options = {}): Promise<SeenEvent[]> {
    const result = app.sendTask(task, args, options);
    sent.add(result.id);
    await receiver.waitFor((seen) => seen.event.uuid === result.id && seen.event.type === last, `${last} of ${task}`);
    return receiver.ofTask(result.id);
  }

  it('announces the worker: worker-online, then heartbeats, and State counts it alive', async () => {
    const online = await receiver.waitFor((seen) => seen.event.type === 'worker-online', 'worker-online');
    expect(online.event).toMatchObject({ sw_ident: 'celeriac', freq: 5 });
    const beat = await receiver.waitFor(
      (seen) => seen.event.type === 'worker-heartbeat' && seen.event.hostname === online.event.hostname,
      'a heartbeat',
    );
    expect(beat.worker_alive).toBe(true);
  });

  it('a task: received, started, succeeded, with its name, result and worker in State', async () => {
    const seen = await run('ts.add', [2, 3], 'task-succeeded');
    expect(types(seen)).toEqual(['task-received', 'task-started', 'task-succeeded']);
    const succeeded = seen[2] as SeenEvent;
    expect(succeeded).toMatchObject({ task_state: 'SUCCESS', task_name: 'ts.add' });
    expect(succeeded.task_worker).toBe(succeeded.event.hostname);
    expect(succeeded.event.result).toBe('5');
  });

  it("a failure: task-failed with the exception as Python's repr writes it", async () => {
    const seen = await run('ts.fail', ['bad input'], 'task-failed');
    expect(seen.at(-1)).toMatchObject({ task_state: 'FAILURE', event: { exception: "TypeError('bad input')" } });
  });

  it('retries: task-retried, then the retry runs to task-succeeded', async () => {
    const seen = await run('ts.flaky', [1], 'task-succeeded');
    expect(types(seen)).toContain('task-retried');
    expect(seen.at(-1)?.task_state).toBe('SUCCESS');
  });

  it('a revoked task: task-revoked, and State marks it REVOKED', async () => {
    const result = app.sendTask('ts.add', [1, 1], { countdown: '1s' });
    sent.add(result.id);
    await result.revoke();
    const revoked = await receiver.waitFor(
      (seen) => seen.event.uuid === result.id && seen.event.type === 'task-revoked',
      'task-revoked',
    );
    expect(revoked).toMatchObject({ task_state: 'REVOKED', event: { expired: false, terminated: false } });
  });

  it('a sender with events on sends task-sent', async () => {
    const sender = celeryApp(fixture.prefix, side, { events: true });
    try {
      const result = sender.sendTask('ts.add', [1, 2]);
      sent.add(result.id);
      const seen = await receiver.waitFor(
        (entry) => entry.event.uuid === result.id && entry.event.type === 'task-sent',
        'task-sent',
      );
      expect(seen).toMatchObject({ task_name: 'ts.add', event: { queue: 'ts', routing_key: 'ts' } });
      expect(seen.event.hostname).toMatch(/^gen\d+@/);
      await result;
    } finally {
      await sender.close();
    }
  });

  it('a worker that stops sends worker-offline', async () => {
    celeriac.signal('SIGTERM');
    const offline = await receiver.waitFor((seen) => seen.event.type === 'worker-offline', 'worker-offline');
    expect(offline.worker_alive).toBe(false);
  });
});
