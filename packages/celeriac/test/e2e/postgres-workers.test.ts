/**
 * `celeriac worker` processes on the PostgreSQL broker: tasks awaited end to end, and a worker
 * killed with SIGKILL under load loses nothing (its leases lapse and a live worker takes them back).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  adminClient,
  deleteKeysUnder,
  dropSchema,
  freshPostgresPrefix,
  POSTGRES_URL,
  REDIS_URL,
} from '@celeriac/test-support';
import { Celeriac } from 'celeriac';
import { WorkerProcesses } from './support/worker-process';

const POSTGRES_APP = join(__dirname, 'fixtures/postgres-app.js');

describe('celeriac worker on PostgreSQL', () => {
  let prefix: string;
  let tally: string;
  let workers: WorkerProcesses;
  let client: Celeriac;

  beforeEach(() => {
    prefix = freshPostgresPrefix('e2e');
    tally = join(tmpdir(), `celeriac-pg-tally-${randomBytes(4).toString('hex')}`);
    workers = new WorkerProcesses(prefix);
    client = new Celeriac({ broker: POSTGRES_URL, backend: REDIS_URL, prefix });
  });

  afterEach(async () => {
    await workers.stopAll();
    await client.close();
    await dropSchema(prefix);
    const admin = adminClient();
    await deleteKeysUnder(admin, prefix);
    await admin.quit();
    rmSync(tally, { force: true });
  });

  /** Starts a worker process on the PostgreSQL app. */
  function startWorker(args: string[], visibility = '30s') {
    return workers.spawn('worker', ['-A', POSTGRES_APP, ...args], {
      CELERIAC_TEST_POSTGRES_URL: POSTGRES_URL,
      CELERIAC_TEST_TALLY_FILE: tally,
      CELERIAC_TEST_VISIBILITY: visibility,
    });
  }

  /** The values the tally task recorded, one per run. */
  const runs = () => readFileSync(tally, 'utf8').trim().split('\n').map(Number);

  it('runs tasks sent one by one and awaits their results', async () => {
    const worker = startWorker(['-c', '4']);
    await worker.ready();
    const results = Array.from({ length: 200 }, (_, i) => client.sendTask<number>('pg.tally', [i, 0]));
    await expect(Promise.all(results.map((result) => result.get({ timeout: 20_000 })))).resolves.toEqual(
      Array.from({ length: 200 }, (_, i) => i),
    );
    expect(await client.broker.stats('default')).toMatchObject({ ready: 0, delayed: 0, dead: 0 });
  });

  it('loses nothing when a worker is killed with SIGKILL under load: its leases come back', async () => {
    const doomed = startWorker(['-c', '4'], '2s');
    const survivor = startWorker(['-c', '4'], '2s');
    await Promise.all([doomed.ready(), survivor.ready()]);
    const results = Array.from({ length: 400 }, (_, i) => client.sendTask<number>('pg.tally', [i, 10]));
    // Killed once the doomed worker has started tasks and holds more (prefetched or running).
    await doomed.waitForLog((line) => line.state === 'STARTED', 'a started task');
    await results[40]!.get({ timeout: 20_000 });
    doomed.signal('SIGKILL');
    await expect(doomed.exited).resolves.toMatchObject({ signal: 'SIGKILL' });
    // It died holding tasks it had begun: those must come back through their lapsed leases.
    const states = new Map(doomed.lines.filter((line) => typeof line.id === 'string').map((l) => [l.id, l.state]));
    const held = [...states].filter(([, state]) => state === 'STARTED').map(([id]) => id);
    expect(held.length).toBeGreaterThan(0);
    const values = await Promise.all(results.map((result) => result.get({ timeout: 30_000 })));
    expect(values).toEqual(Array.from({ length: 400 }, (_, i) => i));
    // Every task ran; those the killed worker held ran again on the survivor (at least once).
    expect(new Set(runs()).size).toBe(400);
    expect(await client.broker.stats('default')).toMatchObject({ ready: 0, delayed: 0, dead: 0 });
  }, 60_000);
});
