/**
 * The RabbitMQ lane: raw amqplib (a confirm channel publishing persistent messages to a durable
 * quorum queue, a consumer with manual acks) against Celeriac on RabbitMQ with results on Redis, in
 * one run on a vhost of its own (deleted afterwards). Drain rate at a prefetch/concurrency of 20 and
 * 100, send-and-await of 10,000, round trip p50/p99, and what a countdown costs a send.
 */
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import { Celeriac } from 'celeriac';
import { Redis } from 'ioredis';
import { deleteKeys } from './redis-stats';

const run = promisify(execFile);
const BASE = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const DRAIN = Math.round(20_000 * SCALE);
const AWAITED = Math.round(10_000 * SCALE);
const TRIPS = Math.round(2_000 * SCALE);
const DELAYED = Math.round(2_000 * SCALE);
/** Where the Python Celery lane's task module is (bench/python). */
const PYTHON_DIR = join(__dirname, '../python');
/** BENCH_PARTS=drain,celery,... runs only those parts (drain, celery, await, trip, delay). */
const PARTS = (process.env.BENCH_PARTS ?? 'drain,celery,await,trip,delay').split(',');

/** Raw amqplib: confirm-publishes `count` messages, then drains them at `prefetch`; messages/s of the drain. */
async function rawDrain(url: string, count: number, prefetch: number, type: QueueType): Promise<number> {
  const connection = await connect(url);
  const publisher = await connection.createConfirmChannel();
  const queue = `raw-${randomUUID()}`;
  await publisher.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': type } });
  const body = Buffer.from(JSON.stringify({ id: randomUUID(), task: 'bench.noop', args: [1] }));
  for (let sent = 0; sent < count; sent += 1_000) {
    for (let i = sent; i < Math.min(count, sent + 1_000); i += 1) {
      publisher.publish('', queue, body, { persistent: true, mandatory: true });
    }
    await publisher.waitForConfirms();
  }
  const consumer = await connection.createChannel();
  await consumer.prefetch(prefetch, false);
  const started = Date.now();
  await new Promise<void>((resolve) => {
    let acked = 0;
    void consumer.consume(queue, (message) => {
      if (!message) return;
      consumer.ack(message);
      acked += 1;
      if (acked === count) resolve();
    });
  });
  const rate = count / ((Date.now() - started) / 1_000);
  await consumer.close();
  await publisher.deleteQueue(queue);
  await connection.close();
  return rate;
}

/** The queue types compared. */
type QueueType = 'quorum' | 'classic';

/** The prefixes of the lane's apps: their keys in Redis are removed at the end. */
const prefixes: string[] = [];

/** A Celeriac app on the bench's vhost under a fresh prefix, results on Redis. */
function celeriacApp(url: string, type: QueueType = 'quorum'): Celeriac {
  const broker = type === 'classic' ? `${url}?queueType=classic` : url;
  const prefix = `bench-amqp-${randomUUID().slice(0, 8)}`;
  prefixes.push(prefix);
  return new Celeriac({ broker, backend: REDIS, prefix });
}

/** Celeriac: `count` no-op tasks sent (and confirmed) first, then a worker at `concurrency`; tasks/s of the drain. */
async function celeriacDrain(url: string, count: number, concurrency: number, type: QueueType): Promise<number> {
  const app = celeriacApp(url, type);
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((resolve) => (finished = resolve));
  const noop = app.task('bench.noop', (i: number) => {
    done += 1;
    if (done === count) finished();
    return i;
  });
  try {
    for (let sent = 0; sent < count; sent += 1_000) {
      const batch = Array.from({ length: Math.min(1_000, count - sent) }, (_, i) => [sent + i] as [number]);
      await Promise.all(noop.delayMany(batch).map((result) => result.sent));
    }
    const worker = app.worker({ concurrency, pool: 'inline' });
    const started = Date.now();
    await worker.start();
    await all;
    return count / ((Date.now() - started) / 1_000);
  } finally {
    await app.close();
  }
}

/** Celeriac: `count` tasks sent and every result awaited, the worker (c=100) in this process; tasks/s. */
async function celeriacSendAndAwait(url: string, count: number): Promise<number> {
  const app = celeriacApp(url);
  const noop = app.task('bench.noop', (i: number) => i);
  try {
    await app.worker({ concurrency: 100, pool: 'inline' }).start();
    const started = Date.now();
    await Promise.all(noop.delayMany(Array.from({ length: count }, (_, i) => [i] as [number])));
    return count / ((Date.now() - started) / 1_000);
  } finally {
    await app.close();
  }
}

/** Celeriac: one task at a time, sent and awaited, worker at c=1 in this process; p50 and p99 in ms. */
async function celeriacRoundTrip(url: string, samples: number): Promise<{ p50: number; p99: number }> {
  const app = celeriacApp(url);
  const noop = app.task('bench.noop', (i: number) => i);
  try {
    await app.worker({ concurrency: 1, pool: 'inline' }).start();
    for (let i = 0; i < Math.max(100, samples / 4); i += 1) await noop.delay(i);
    const times: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      const started = process.hrtime.bigint();
      await noop.delay(i);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(samples * 0.5)] ?? 0, p99: times[Math.floor(samples * 0.99)] ?? 0 };
  } finally {
    await app.close();
  }
}

/** How Python Celery's worker runs in the lane: its prefork pool, or threads. */
type CeleryPool = { pool: 'prefork'; concurrency: 2 } | { pool: 'threads'; concurrency: number };

/**
 * Python Celery 5 (Debian's python3-celery, py-amqp): `count` tasks sent first (by Celeriac, speaking
 * Celery's protocol, to a classic queue as Celery declares it), then a Celery worker started on the
 * queue; tasks/s from its "ready" line until every result is in Redis (Celery's result backend, as
 * Celeriac's drain stores its results too).
 */
async function celeryDrain(url: string, count: number, pool: CeleryPool): Promise<number> {
  const queue = `pybench-${randomUUID().slice(0, 8)}`;
  const app = new Celeriac({ broker: url, backend: REDIS, protocol: 'celery', defaultQueue: queue });
  const results = [];
  try {
    for (let sent = 0; sent < count; sent += 1_000) {
      const batch = Array.from({ length: Math.min(1_000, count - sent) }, (_, i) =>
        app.sendTask<number>('bench.noop', [sent + i]),
      );
      await Promise.all(batch.map((result) => result.sent));
      results.push(...batch);
    }
    const args = ['-m', 'celery', '-A', 'bench_tasks', 'worker', '-Q', queue, '--pool', pool.pool];
    args.push('-c', String(pool.concurrency), '--without-gossip', '--without-mingle', '--without-heartbeat');
    const worker = spawn('/usr/bin/python3', [...args, '-l', 'INFO'], {
      cwd: PYTHON_DIR,
      env: { ...process.env, BENCH_BROKER: url, BENCH_BACKEND: REDIS, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: worker.stderr! }).on('line', (line) => / ready\.$/.test(line) && resolve());
        worker.once('exit', (code) => reject(new Error(`the Celery worker exited with ${code}`)));
      });
      const started = Date.now();
      await Promise.all(results.map((result) => result.get({ timeout: 600_000 })));
      return count / ((Date.now() - started) / 1_000);
    } finally {
      worker.kill('SIGKILL');
    }
  } finally {
    await app.close();
    // Celery 5.2's result keys have no prefix: remove the lane's own.
    const admin = new Redis(REDIS);
    for (let at = 0; at < results.length; at += 1_000) {
      await admin.del(...results.slice(at, at + 1_000).map((result) => `celery-task-meta-${result.id}`));
    }
    admin.disconnect();
  }
}

/** What a countdown costs a send: sends/s of `count` tasks, ready and with a 60 s countdown. */
async function delayCost(url: string, count: number): Promise<{ ready: number; delayed: number }> {
  const app = celeriacApp(url);
  const noop = app.task('bench.noop', (i: number) => i);
  const rate = async (countdown: number | undefined) => {
    const started = Date.now();
    for (let sent = 0; sent < count; sent += 500) {
      const batch = Array.from({ length: Math.min(500, count - sent) }, (_, i) =>
        noop.applyAsync([sent + i], countdown === undefined ? {} : { countdown }),
      );
      await Promise.all(batch.map((result) => result.sent));
    }
    return count / ((Date.now() - started) / 1_000);
  };
  try {
    await rate(60_000); // declares the levels
    return { ready: await rate(undefined), delayed: await rate(60_000) };
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const vhost = `celeriac-bench-${randomUUID().slice(0, 8)}`;
  await run('rabbitmqctl', ['add_vhost', vhost]);
  await run('rabbitmqctl', ['set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*']);
  const url = `${BASE}/${vhost}`;
  const fixed = (value: number) => Math.round(value).toLocaleString('en-US');
  try {
    const rows: Array<[string, string, string]> = [];
    for (const type of PARTS.includes('drain') ? (['quorum', 'classic'] as const) : []) {
      for (const level of [20, 100]) {
        // In turn, so the machine's drift falls on both alike.
        const raw = await rawDrain(url, DRAIN, level, type);
        const celeriac = await celeriacDrain(url, DRAIN, level, type);
        rows.push([`drain, ${type}, prefetch/concurrency ${level} (msgs/s)`, fixed(raw), fixed(celeriac)]);
      }
    }
    if (PARTS.includes('celery')) {
      // Python Celery on the same RabbitMQ, each pool next to Celeriac at its concurrency (classic queues, as Celery's).
      for (const pool of [
        { pool: 'prefork', concurrency: 2 },
        { pool: 'threads', concurrency: 20 },
      ] as const) {
        const celery = await celeryDrain(url, DRAIN, pool);
        const celeriac = await celeriacDrain(url, DRAIN, pool.concurrency, 'classic');
        const what = `drain, Python Celery ${pool.pool} -c ${pool.concurrency} | Celeriac c=${pool.concurrency} (tasks/s)`;
        rows.push([what, fixed(celery), fixed(celeriac)]);
      }
    }
    if (PARTS.includes('await'))
      rows.push(['send and await 10,000 (tasks/s)', '', fixed(await celeriacSendAndAwait(url, AWAITED))]);
    if (PARTS.includes('trip')) {
      const trip = await celeriacRoundTrip(url, TRIPS);
      rows.push(['round trip p50 / p99 (ms)', '', `${trip.p50.toFixed(2)} / ${trip.p99.toFixed(2)}`]);
    }
    if (PARTS.includes('delay')) {
      const cost = await delayCost(url, DELAYED);
      rows.push(['sends/s, ready / with a countdown', '', `${fixed(cost.ready)} / ${fixed(cost.delayed)}`]);
    }
    console.log(`RabbitMQ lane, ${new Date().toISOString()}, scale ${SCALE}`);
    console.log('| scenario | raw amqplib (or Python Celery) | Celeriac (results on Redis) |');
    console.log('| --- | --- | --- |');
    for (const [what, raw, celeriac] of rows) console.log(`| ${what} | ${raw} | ${celeriac} |`);
  } finally {
    await run('rabbitmqctl', ['delete_vhost', vhost]);
    // The results of a drain stay for a day: a keyspace grown by runs slows every SCAN on this Redis.
    const admin = new Redis(REDIS);
    for (const prefix of prefixes) await deleteKeys(admin, `${prefix}:*`);
    admin.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
