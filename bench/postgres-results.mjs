// Results on PostgreSQL (issue #36): the backend's store and get rates, the await latency of a
// notice, and send-and-await through a Redis broker with `backend: 'postgres://…'` (caller and worker
// as two apps, each with its own pool and listening session). Run after `npm run build`:
//   node bench/postgres-results.mjs        (POSTGRES_URL, REDIS_URL pick the servers)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Celeriac } = require('celeriac');
const { Codec } = require('@celeriac/core');
const { PostgresBackend, PostgresConnection } = require('@celeriac/postgres');
const { Client } = require('pg');
const Redis = require('ioredis');

const PG = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const prefix = `bench_pg_results_${Date.now()}`;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const perSecond = (n, started) => Math.round(n / ((performance.now() - started) / 1000));
const record = (id) => ({
  record: { id, state: 'SUCCESS', task: 'bench', date: Date.now(), result: { n: id.length } },
  ttl: 3_600_000,
});

/** Runs `n` calls of `call(i)` from `callers` concurrent loops; resolves with calls a second. */
async function rate(n, callers, call) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < n) await call(next++);
    }),
  );
  return perSecond(n, started);
}

/** p50 and p99 (ms) of `n` waits, each stored by `store(id)` once the wait began. */
async function awaitLatency(waiter, n, store) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const id = `wait-${samples.length}-${Math.random()}`;
    const waiting = waiter.waitFor(id);
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    await store(id);
    await waiting;
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: +percentile(samples, 0.5).toFixed(2), p99: +percentile(samples, 0.99).toFixed(2) };
}

async function backendFigures() {
  const codec = new Codec();
  const open = (clientId) =>
    new PostgresBackend(new PostgresConnection(PG, prefix), { prefix, clientId }, codec, { sweepInterval: 0 });
  const [writer, waiter] = [open('writer'), open('waiter')];
  try {
    await Promise.all([writer.get('warm'), waiter.get('warm')]);
    const storeOne = await rate(5_000, 16, (i) => writer.store([record(`one-${i}`)]));
    const started = performance.now();
    const batches = Array.from({ length: 200 }, (_, b) =>
      writer.store(Array.from({ length: 100 }, (_, k) => record(`batch-${b * 100 + k}`))),
    );
    await Promise.all(batches);
    const storeBatched = perSecond(20_000, started);
    const get = await rate(10_000, 16, (i) => writer.get(`batch-${i % 20_000}`));
    const notice = await awaitLatency(waiter, 500, (id) => writer.store([record(id)]));
    const addressed = await awaitLatency(waiter, 500, (id) => writer.store([{ ...record(id), replyTo: 'waiter' }]));
    return { storeOne, storeBatched, get, notice, addressed };
  } finally {
    await Promise.all([writer.close(), waiter.close()]);
  }
}

async function appFigures() {
  const open = () => new Celeriac({ broker: REDIS, backend: PG, prefix });
  const [caller, workerApp] = [open(), open()];
  const send = caller.task('bench.noop', (n) => n);
  workerApp.task('bench.noop', (n) => n);
  const worker = workerApp.worker({ concurrency: 20, pool: 'inline' });
  await worker.start();
  try {
    for (let i = 0; i < 50; i++) await send.delay(i);
    const samples = [];
    const started = performance.now();
    for (let i = 0; i < 2_000; i++) {
      const t = performance.now();
      await send.delay(i);
      samples.push(performance.now() - t);
    }
    const oneByOne = perSecond(2_000, started);
    const concurrentStart = performance.now();
    await Promise.all(Array.from({ length: 2_000 }, (_, i) => send.delay(i)));
    const concurrent = perSecond(2_000, concurrentStart);
    samples.sort((a, b) => a - b);
    return {
      oneByOne,
      p50: +percentile(samples, 0.5).toFixed(2),
      p99: +percentile(samples, 0.99).toFixed(2),
      concurrent,
    };
  } finally {
    await worker.close();
    await Promise.all([caller.close(), workerApp.close()]);
  }
}

async function cleanUp() {
  const client = new Client({ connectionString: PG });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${prefix}" CASCADE`);
  await client.end();
  const redis = new Redis(REDIS);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
}

try {
  const backend = await backendFigures();
  console.log('backend: store, 1 record a call, 16 callers     ', backend.storeOne, '/s');
  console.log('backend: store, 100 records a call              ', backend.storeBatched, 'records/s');
  console.log('backend: get, 16 callers                        ', backend.get, '/s');
  console.log('backend: await (ready id in the notice, a read) ', backend.notice, 'ms');
  console.log('backend: await (record in the notice, no read)  ', backend.addressed, 'ms');
  const app = await appFigures();
  console.log(
    'app: send-and-await one by one (Redis broker)   ',
    app.oneByOne,
    `/s, p50 ${app.p50} ms, p99 ${app.p99} ms`,
  );
  console.log('app: send-and-await 2,000 at once               ', app.concurrent, '/s');
} finally {
  await cleanUp();
}
