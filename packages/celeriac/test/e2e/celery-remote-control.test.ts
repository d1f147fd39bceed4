/**
 * Celery's remote control across languages with protocol 'celery'. Revoke: Python's
 * `app.control.revoke(id)` (Celery's pidbox broadcast) reaches a `celeriac worker`, and a Celeriac
 * `result.revoke()` reaches a Python Celery worker, before a task runs (it ends REVOKED) and with
 * terminate while it runs. Inspect and control: `celery inspect ping` from Python lists the celeriac
 * worker beside the Python one, `inspect active|registered|stats|active_queues` answer from what it
 * holds, `destination` picks it alone, and `add_consumer` / `cancel_consumer` change its queues. One
 * Python worker (prefork, so that it can terminate a task) and one celeriac worker serve the whole file.
 */
import { join } from 'node:path';
import { type Celeriac, TaskRevokedError } from 'celeriac';
import { runtimeOf } from '@celeriac/core/internal';
import { RedisFixture } from '@celeriac/test-support';
import {
  celeryApp,
  celeryCommand,
  forgetResults,
  pythonCall,
  pythonRemote,
  pythonRevoke,
  PythonWorker,
  type CelerySide,
} from './support/python-celery';
import { WorkerProcesses, type WorkerProcess } from './support/worker-process';

const CELERY_APP = join(__dirname, 'fixtures/celery-app.js');

describe('protocol celery: remote control across languages', () => {
  let fixture: RedisFixture;
  let side: CelerySide;
  let python: PythonWorker;
  let workers: WorkerProcesses;
  let celeriac: WorkerProcess;
  let app: Celeriac;
  /** The celeriac worker's hostname, as its replies name it. */
  let hostname: string;
  const sent = new Set<string>();

  /** The celeriac worker's one reply to each command, sent from Python to it alone. */
  async function celeriacReplies(...commands: [method: string, args?: Record<string, unknown>][]): Promise<unknown[]> {
    const replies = await pythonRemote(
      side,
      commands.map(([method, args]) => ({ method, arguments: args ?? {}, destination: [hostname] })),
    );
    return replies.map((reply) => {
      expect(reply).toHaveLength(1);
      return reply[0]![hostname];
    });
  }

  beforeAll(async () => {
    fixture = new RedisFixture('celery-remote-control');
    side = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'py', remoteControl: true };
    python = new PythonWorker(side, 'prefork');
    workers = new WorkerProcesses(fixture.prefix);
    celeriac = workers.spawn('worker', ['-A', CELERY_APP, '-Q', 'ts', '--pool', 'fork', '--concurrency', '1']);
    await Promise.all([python.ready(), celeriac.ready()]);
    const [replies] = await pythonRemote(side, [{ method: 'ping' }]);
    hostname = replies!.map((reply) => Object.keys(reply)[0]!).find((name) => !name.startsWith('py@'))!;
  });

  // A fresh app each test: the leak check closes what a test opened.
  beforeEach(() => {
    app = celeryApp(fixture.prefix, side);
  });

  afterEach(() => app.close());

  afterAll(async () => {
    await Promise.all([python.kill(), workers.stopAll()]);
    await forgetResults(fixture.redis(), sent);
    await fixture.cleanup();
  });

  describe('Python revokes, a celeriac worker honours it', () => {
    it('a task revoked before its eta does not run: Python sees TaskRevokedError', async () => {
      const call = pythonCall(side, {
        task: 'ts.stamp',
        args: ['never'],
        queue: 'ts',
        options: { countdown: 2 },
        revoke: true,
      });
      const id = await call.id;
      sent.add(id);
      await expect(call.outcome).resolves.toMatchObject({ state: 'REVOKED', exc_type: 'TaskRevokedError' });
      const line = await celeriac.waitForLog((entry) => entry.id === id && entry.reason !== undefined, 'not run');
      expect(line.reason).toBe('revoked');
      // Remembered for Celeriac workers started later (heard two seconds before the task came due).
      expect((await runtimeOf(app).broker.listRevoked()).map((revocation) => revocation.id)).toContain(id);
    });

    it('terminate=True stops the running task', async () => {
      const call = pythonCall(side, { task: 'ts.sleep', args: [30_000, 'late'], queue: 'ts' });
      const id = await call.id;
      sent.add(id);
      await celeriac.started(id);
      await pythonRevoke(side, [id], { terminate: true });
      await expect(call.outcome).resolves.toMatchObject({ state: 'REVOKED', exc_type: 'TaskRevokedError' });
    });
  });

  describe('Celeriac revokes, a Python worker honours it', () => {
    it('a task revoked before its eta does not run: the caller gets TaskRevokedError', async () => {
      const result = app.sendTask('proj.add', [1, 1], { countdown: '2s' });
      sent.add(result.id);
      await result.sent;
      await result.revoke();
      await expect(result.get({ timeout: 20_000 })).rejects.toBeInstanceOf(TaskRevokedError);
      await expect(result.state()).resolves.toBe('REVOKED');
    });

    it('revoke with terminate stops the running Python task', async () => {
      const result = app.sendTask('proj.slow', [30, 'late']);
      sent.add(result.id);
      await python.waitFor(new RegExp(`Task proj\\.slow\\[${result.id}\\] received`));
      await app.revoke(result.id, { terminate: true });
      await expect(result.get({ timeout: 20_000 })).rejects.toBeInstanceOf(TaskRevokedError);
      await python.waitFor(new RegExp(`Terminating ${result.id}`));
    });
  });

  describe('Python inspects and controls a celeriac worker', () => {
    it('celery inspect ping lists the celeriac worker beside the Python one', async () => {
      const output = JSON.parse(await celeryCommand(side, ['inspect', 'ping', '--json', '--timeout', '2'])) as Record<
        string,
        unknown
      >;
      const python = Object.keys(output).find((name) => name.startsWith('py@'));
      expect(output).toEqual({ [hostname]: { ok: 'pong' }, [python!]: { ok: 'pong' } });
    });

    it('inspect active, registered, stats and active_queues answer from what the worker holds', async () => {
      const result = app.sendTask('ts.sleep', [30_000, 'late'], { queue: 'ts' });
      sent.add(result.id);
      await celeriac.started(result.id);
      const [[active], registered, stats, queues] = (await celeriacReplies(
        ['active'],
        ['registered'],
        ['stats'],
        ['active_queues'],
      )) as [Record<string, unknown>[], ...unknown[]];
      expect(active).toMatchObject({
        id: result.id,
        name: 'ts.sleep',
        args: '[30000,"late"]',
        hostname,
        acknowledged: true,
        delivery_info: { routing_key: 'ts', redelivered: false },
      });
      expect(active!.time_start).toEqual(expect.any(Number));
      // A pool child runs it, not the worker's own process.
      expect(active!.worker_pid).toEqual(expect.any(Number));
      expect(active!.worker_pid).not.toBe(celeriac.child.pid);
      await app.revoke(result.id, { terminate: true });
      expect(registered).toEqual(expect.arrayContaining(['ts.add', 'ts.sleep']));
      expect(stats).toMatchObject({
        pid: celeriac.child.pid,
        pool: { 'max-concurrency': 1, implementation: 'celeriac:fork' },
      });
      expect(queues).toEqual([expect.objectContaining({ name: 'ts', routing_key: 'ts' })]);
    });

    it('add_consumer and cancel_consumer from Python change the queues the worker takes from', async () => {
      expect(await celeriacReplies(['add_consumer', { queue: 'extra' }])).toEqual([{ ok: 'add consumer extra' }]);
      const extra = app.sendTask('ts.add', [2, 3], { queue: 'extra' });
      sent.add(extra.id);
      await expect(extra.get({ timeout: 20_000 })).resolves.toBe(5);
      expect(await celeriacReplies(['cancel_consumer', { queue: 'extra' }], ['active_queues'])).toEqual([
        { ok: 'no longer consuming from extra' },
        [expect.objectContaining({ name: 'ts' })],
      ]);
    });
  });
});
