/**
 * The PostgreSQL lane: Celeriac on its PostgreSQL broker (results in Redis) against graphile-worker
 * and pg-boss on the same server, each in a fresh database of its own, dropped afterwards.
 *
 * - drain: N no-op jobs queued first, then one worker in this process at concurrency c; time from
 *   the worker's start until the last job finished.
 * - statements per job (Celeriac): the broker pool's checkouts during the drain (every statement
 *   takes one), over N.
 * - commits per job and WAL bytes per job: `pg_stat_database.xact_commit` of the lane's own database
 *   and `pg_current_wal_lsn()` around the drain (WAL is the whole server's: other work on it counts).
 * - send-and-await one by one (Celeriac): each task sent and its result awaited before the next.
 * - idle: commits over 10 s of a worker with nothing to do.
 *
 * - scaling (Celeriac): the same backlog, without results, drained by 1, 2 and 4 worker processes.
 * - enqueue to start: one task at a time into an idle worker, its send time in its payload.
 *
 * `BENCH_PARTS` (default `drain,scaling,latency,roundtrip`), `BENCH_JOBS` (default 10,000),
 * `BENCH_ROUNDTRIPS` (default 2,000), `BENCH_ONLY` (one library),
 * `POSTGRES_URL`, `REDIS_URL`.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Celeriac } from 'celeriac';
import { PostgresBroker } from '@celeriac/postgres';
import { Client } from 'pg';
import { withSession } from './pg-session';
import type { PgBoss as PgBossType } from 'pg-boss';

const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const JOBS = Number(process.env.BENCH_JOBS ?? 10_000);
const ROUNDTRIPS = Number(process.env.BENCH_ROUNDTRIPS ?? 2_000);
const ONLY = process.env.BENCH_ONLY;
const parts = new Set((process.env.BENCH_PARTS ?? 'drain,scaling,latency,roundtrip').split(','));

/** One measured drain. */
interface Drain {
  library: string;
  concurrency: number;
  jobsPerSecond: number;
  commitsPerJob: number;
  walBytesPerJob: number;
  statementsPerJob?: number;
}

/** A session to the server's default database, for creating and dropping the lanes' databases. */
function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  return withSession(POSTGRES_URL, work);
}

/** A fresh database; returns its URL and the function that drops it. */
async function freshDatabase(label: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `bench_${label}_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The database's commit count and the server's WAL position. */
async function counters(database: string): Promise<{ commits: number; wal: string }> {
  return admin(async (client) => {
    const { rows } = await client.query<{ commits: string; wal: string }>(
      'SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = $1) AS commits, pg_current_wal_lsn() AS wal',
      [database],
    );
    return { commits: Number(rows[0]?.commits ?? 0), wal: rows[0]?.wal ?? '0/0' };
  });
}

async function walBytes(from: string, to: string): Promise<number> {
  return admin(async (client) => {
    const { rows } = await client.query<{ n: string }>('SELECT pg_wal_lsn_diff($2, $1) AS n', [from, to]);
    return Number(rows[0]?.n ?? 0);
  });
}

/** Backends report their counts within seconds of going idle: read after they have. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 11_000));

/** Measures `drain` (which resolves once every job finished) with the database's counters around it. */
async function measured(
  library: string,
  concurrency: number,
  database: string,
  drain: () => Promise<number>,
): Promise<Drain> {
  await settle();
  const before = await counters(database);
  const started = performance.now();
  const statements = await drain();
  const seconds = (performance.now() - started) / 1000;
  await settle();
  const after = await counters(database);
  return {
    library,
    concurrency,
    jobsPerSecond: Math.round(JOBS / seconds),
    commitsPerJob: (after.commits - before.commits) / JOBS,
    walBytesPerJob: Math.round((await walBytes(before.wal, after.wal)) / JOBS),
    ...(statements > 0 && { statementsPerJob: statements / JOBS }),
  };
}

async function celeriacDrain(concurrency: number): Promise<Drain> {
  const db = await freshDatabase('celeriac');
  const prefix = `bench_${randomBytes(4).toString('hex')}`;
  const app = new Celeriac({ broker: db.url, backend: REDIS_URL, prefix });
  let done = 0;
  let finished = () => {};
  const all = new Promise<void>((resolve) => (finished = resolve));
  app.task('bench.noop', () => {
    done += 1;
    if (done === JOBS) finished();
  });
  try {
    for (let sent = 0; sent < JOBS; sent += 1_000) {
      await Promise.all(Array.from({ length: Math.min(1_000, JOBS - sent) }, () => app.sendTask('bench.noop').sent));
    }
    const broker = app.broker as PostgresBroker;
    return await measured('celeriac', concurrency, db.name, async () => {
      let statements = 0;
      broker.connection.pool.on('acquire', () => (statements += 1));
      const worker = app.worker({ pool: 'inline', concurrency });
      await worker.start();
      await all;
      const counted = statements;
      await worker.close();
      return counted;
    });
  } finally {
    await app.close();
    await db.drop();
  }
}

async function celeriacRoundTrips(): Promise<{
  perSecond: number;
  p50: number;
  p99: number;
  idleCommitsPerSecond: number;
}> {
  const db = await freshDatabase('celeriac_rt');
  const prefix = `bench_${randomBytes(4).toString('hex')}`;
  const app = new Celeriac({ broker: db.url, backend: REDIS_URL, prefix });
  const noop = app.task('bench.noop', () => 1);
  const worker = app.worker({ pool: 'inline', concurrency: 1 });
  try {
    await worker.start();
    for (let i = 0; i < 300; i += 1) await noop.applyAsync([]).get();
    const samples: number[] = [];
    const started = performance.now();
    for (let i = 0; i < ROUNDTRIPS; i += 1) {
      const at = performance.now();
      await noop.applyAsync([]).get();
      samples.push(performance.now() - at);
    }
    const perSecond = Math.round(ROUNDTRIPS / ((performance.now() - started) / 1000));
    samples.sort((a, b) => a - b);
    await settle();
    const before = await counters(db.name);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    await settle();
    const after = await counters(db.name);
    return {
      perSecond,
      p50: samples[Math.floor(samples.length * 0.5)] ?? 0,
      p99: samples[Math.floor(samples.length * 0.99)] ?? 0,
      idleCommitsPerSecond: (after.commits - before.commits) / 10,
    };
  } finally {
    await worker.close();
    await app.close();
    await db.drop();
  }
}

/** A worker process of postgres-drain-worker.ts; resolves once it consumes, with how to stop it. */
async function drainWorker(url: string, prefix: string, concurrency: number): Promise<() => Promise<void>> {
  const child = fork(join(__dirname, 'postgres-drain-worker.js'), [url, prefix, String(concurrency)]);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`a drain worker exited with ${code} before it was ready`)));
  });
  return async () => {
    child.send('stop');
    await exited;
  };
}

/**
 * Scaling: JOBS no-op tasks without results queued on a paused queue, `processes` worker processes at
 * c=20 each started and waiting, then the queue resumed; time until the hot table is empty.
 */
async function celeriacScaling(processes: number): Promise<{ processes: number; jobsPerSecond: number }> {
  const db = await freshDatabase('celeriac_scale');
  const prefix = `bench_${randomBytes(4).toString('hex')}`;
  const app = new Celeriac({ broker: db.url, prefix });
  const broker = app.broker as PostgresBroker;
  const stops: Array<() => Promise<void>> = [];
  try {
    await broker.pauseQueue('default');
    for (let sent = 0; sent < JOBS; sent += 1_000) {
      const batch = Array.from({ length: Math.min(1_000, JOBS - sent) }, () =>
        app.sendTask('bench.noop', [], { ignoreResult: true }),
      );
      await Promise.all(batch.map((handle) => handle.sent));
    }
    stops.push(...(await Promise.all(Array.from({ length: processes }, () => drainWorker(db.url, prefix, 20)))));
    const started = performance.now();
    await broker.resumeQueue('default');
    await untilEmpty(db.url, broker.connection.schema);
    const seconds = (performance.now() - started) / 1000;
    return { processes, jobsPerSecond: Math.round(JOBS / seconds) };
  } finally {
    await Promise.all(stops.map((stop) => stop()));
    await app.close();
    await db.drop();
  }
}

/** Resolves once the hot table of `schema` holds no message (every task acked). */
async function untilEmpty(url: string, schema: string): Promise<void> {
  await withSession(url, async (client) => {
    for (;;) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".messages`);
      if (Number(rows[0]?.n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
}

/** Latency samples: the median and 99th percentile, in ms. */
function percentiles(samples: number[]): { p50: number; p99: number } {
  samples.sort((a, b) => a - b);
  const at = (fraction: number) => Number((samples[Math.floor(samples.length * fraction)] ?? 0).toFixed(2));
  return { p50: at(0.5), p99: at(0.99) };
}

/** How many enqueue-to-start samples each library takes, one task at a time into an idle worker. */
const LATENCY_SAMPLES = 200;

/** Enqueue to start: each task carries its send time; the next is sent once it started. */
async function celeriacLatency(): Promise<{ p50: number; p99: number }> {
  const db = await freshDatabase('celeriac_latency');
  const app = new Celeriac({ broker: db.url, prefix: `bench_${randomBytes(4).toString('hex')}` });
  let started: (at: number) => void = () => undefined;
  const task = app.task('bench.stamp', (sentAt: number) =>
    started(performance.timeOrigin + performance.now() - sentAt),
  );
  const worker = app.worker({ pool: 'inline', concurrency: 1 });
  try {
    await worker.start();
    const samples: number[] = [];
    for (let round = 0; round < LATENCY_SAMPLES + 20; round += 1) {
      const latency = new Promise<number>((resolve) => (started = resolve));
      await task.applyAsync([performance.timeOrigin + performance.now()], { ignoreResult: true }).sent;
      const ms = await latency;
      if (round >= 20) samples.push(ms);
    }
    return percentiles(samples);
  } finally {
    await worker.close();
    await app.close();
    await db.drop();
  }
}

async function graphileLatency(): Promise<{ p50: number; p99: number }> {
  const db = await freshDatabase('graphile_latency');
  const { run, makeWorkerUtils, Logger } = await import('graphile-worker');
  const logger = new Logger(() => () => undefined);
  const utils = await makeWorkerUtils({ connectionString: db.url, logger });
  let started: (at: number) => void = () => undefined;
  try {
    await utils.migrate();
    const runner = await run({
      connectionString: db.url,
      concurrency: 1,
      noHandleSignals: true,
      logger,
      taskList: {
        stamp: async (payload) => started(performance.timeOrigin + performance.now() - (payload as { at: number }).at),
      },
    });
    const samples: number[] = [];
    for (let round = 0; round < LATENCY_SAMPLES + 20; round += 1) {
      const latency = new Promise<number>((resolve) => (started = resolve));
      await utils.addJob('stamp', { at: performance.timeOrigin + performance.now() });
      const ms = await latency;
      if (round >= 20) samples.push(ms);
    }
    await runner.stop();
    return percentiles(samples);
  } finally {
    await utils.release();
    await db.drop();
  }
}

async function pgBossLatency(): Promise<{ p50: number; p99: number }> {
  const db = await freshDatabase('pgboss_latency');
  const { PgBoss } = await import('pg-boss');
  const boss: PgBossType = new PgBoss({ connectionString: db.url });
  boss.on('error', () => undefined);
  let started: (at: number) => void = () => undefined;
  try {
    await boss.start();
    await boss.createQueue('stamp');
    // Its shortest polling interval: pg-boss has no notification of new work.
    await boss.work<{ at: number }>('stamp', { pollingIntervalSeconds: 0.5 }, async ([job]) => {
      if (job) started(performance.timeOrigin + performance.now() - job.data.at);
    });
    const samples: number[] = [];
    for (let round = 0; round < Math.min(LATENCY_SAMPLES, 60) + 5; round += 1) {
      const latency = new Promise<number>((resolve) => (started = resolve));
      await boss.send('stamp', { at: performance.timeOrigin + performance.now() });
      const ms = await latency;
      if (round >= 5) samples.push(ms);
    }
    return percentiles(samples);
  } finally {
    await boss.stop({ graceful: false }).catch(() => undefined);
    await db.drop();
  }
}

async function graphileDrain(concurrency: number, tuned: boolean): Promise<Drain> {
  const db = await freshDatabase('graphile');
  const { run, makeWorkerUtils, Logger } = await import('graphile-worker');
  // Its default logger writes a line per job: the lane would measure the terminal.
  const logger = new Logger(() => () => undefined);
  const utils = await makeWorkerUtils({ connectionString: db.url, logger });
  try {
    await utils.migrate();
    for (let sent = 0; sent < JOBS; sent += 1_000) {
      const batch = Array.from({ length: Math.min(1_000, JOBS - sent) }, () => ({ identifier: 'noop', payload: {} }));
      await utils.addJobs(batch);
    }
    return await measured(tuned ? 'graphile-worker (tuned)' : 'graphile-worker', concurrency, db.name, async () => {
      let done = 0;
      let finished = () => {};
      const all = new Promise<void>((resolve) => (finished = resolve));
      const runner = await run({
        connectionString: db.url,
        concurrency,
        noHandleSignals: true,
        logger,
        ...(tuned && {
          maxPoolSize: concurrency + 2,
          preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
        }),
        taskList: {
          noop: async () => {
            done += 1;
            if (done === JOBS) finished();
          },
        },
      });
      await all;
      await runner.stop();
      return 0;
    });
  } finally {
    await utils.release();
    await db.drop();
  }
}

async function pgBossDrain(concurrency: number): Promise<Drain> {
  const db = await freshDatabase('pgboss');
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: db.url });
  boss.on('error', () => undefined);
  try {
    await boss.start();
    await boss.createQueue('noop');
    for (let sent = 0; sent < JOBS; sent += 1_000) {
      await boss.insert(
        'noop',
        Array.from({ length: Math.min(1_000, JOBS - sent) }, () => ({ data: {} })),
      );
    }
    return await measured('pg-boss (batch)', concurrency, db.name, async () => {
      let done = 0;
      let finished = () => {};
      const all = new Promise<void>((resolve) => (finished = resolve));
      await boss.work('noop', { batchSize: concurrency, pollingIntervalSeconds: 0.5 }, async (jobs) => {
        done += jobs.length;
        if (done >= JOBS) finished();
      });
      await all;
      return 0;
    });
  } finally {
    await boss.stop({ graceful: false }).catch(() => undefined);
    await db.drop();
  }
}

async function main(): Promise<void> {
  const drains: Drain[] = [];
  const wants = (library: string) => ONLY === undefined || ONLY === library;
  for (const concurrency of parts.has('drain') ? [20, 100] : []) {
    if (wants('celeriac')) drains.push(await celeriacDrain(concurrency));
    if (wants('graphile')) {
      drains.push(await graphileDrain(concurrency, false));
      drains.push(await graphileDrain(concurrency, true).catch((error: unknown) => failed('graphile tuned', error)));
    }
    if (wants('pgboss'))
      drains.push(await pgBossDrain(concurrency).catch((error: unknown) => failed('pg-boss', error)));
  }
  if (drains.length > 0) {
    console.log(`drain ${JOBS} no-op jobs, one worker process:`);
    console.table(drains);
  }
  if (wants('celeriac') && parts.has('scaling')) {
    const scaling = [];
    for (const processes of [1, 2, 4]) scaling.push(await celeriacScaling(processes));
    console.log(`celeriac: drain ${JOBS} no-op tasks without results, worker processes at c=20 each:`);
    console.table(scaling);
  }
  if (parts.has('latency')) {
    const latency: Record<string, { p50: number; p99: number }> = {};
    if (wants('celeriac')) latency.celeriac = await celeriacLatency();
    if (wants('graphile')) latency['graphile-worker'] = await graphileLatency();
    if (wants('pgboss')) latency['pg-boss (polling 0.5 s)'] = await pgBossLatency();
    console.log('enqueue to start, one task at a time into an idle worker (ms):');
    console.table(latency);
  }
  if (wants('celeriac') && parts.has('roundtrip')) {
    const trips = await celeriacRoundTrips();
    console.log(
      `celeriac send-and-await one by one (${ROUNDTRIPS}): ${trips.perSecond}/s, p50 ${trips.p50.toFixed(2)} ms, ` +
        `p99 ${trips.p99.toFixed(2)} ms; idle worker: ${trips.idleCommitsPerSecond} commits/s`,
    );
  }
}

function failed(library: string, error: unknown): Drain {
  console.error(`${library} failed:`, error);
  return { library: `${library} (failed)`, concurrency: 0, jobsPerSecond: 0, commitsPerJob: 0, walBytesPerJob: 0 };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
