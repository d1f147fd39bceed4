/**
 * Revoke across languages with protocol 'celery': Python's `app.control.revoke(id)` (Celery's pidbox
 * broadcast) reaches a `celeriac worker`, and a Celeriac `result.revoke()` reaches a Python Celery
 * worker, before a task runs (it ends REVOKED) and with terminate while it runs. One Python worker
 * (prefork, so that it can terminate a task) and one celeriac worker serve the whole file.
 */
import { join } from 'node:path';
import { type Celeriac, TaskRevokedError } from 'celeriac';
import { runtimeOf } from '@celeriac/core/internal';
import { RedisFixture } from '@celeriac/test-support';
import {
  celeryApp,
  forgetResults,
  pythonCall,
  pythonRevoke,
  PythonWorker,
  type CelerySide,
} from './support/python-celery';
import { WorkerProcesses, type WorkerProcess } from './support/worker-process';

const CELERY_APP = join(__dirname, 'fixtures/celery-app.js');

describe('protocol celery: revoke across languages', () => {
  let fixture: RedisFixture;
  let side: CelerySide;
  let python: PythonWorker;
  let workers: WorkerProcesses;
  let celeriac: WorkerProcess;
  let app: Celeriac;
  const sent = new Set<string>();

  beforeAll(async () => {
    fixture = new RedisFixture('celery-revoke');
    side = { keyPrefix: `${fixture.prefix}:kombu:`, queue: 'py', remoteControl: true };
    python = new PythonWorker(side, 'prefork');
    workers = new WorkerProcesses(fixture.prefix);
    celeriac = workers.spawn('worker', ['-A', CELERY_APP, '-Q', 'ts', '--pool', 'fork', '--concurrency', '1']);
    await Promise.all([python.ready(), celeriac.ready()]);
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
});
