/**
 * The RabbitMQ lane: raw amqplib (a confirm channel publishing persistent messages to a durable
 * quorum queue, a consumer with manual acks) against Celeriac on RabbitMQ with results on Redis, in
 * one run on a vhost of its own (deleted afterwards). Drain rate at a prefetch/concurrency of 20 and
 * 100, send-and-await of 10,000, round trip p50/p99, and what a countdown costs a send.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import { Celeriac } from 'celeriac';

const run = promisify(execFile);
const BASE = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const DRAIN = Math.round(20_000 * SCALE);
const AWAITED = Math.round(10_000 * SCALE);
const TRIPS = Math.round(2_000 * SCALE);
const DELAYED = Math.round(2_000 * SCALE);

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

/** A Celeriac app on the bench's vhost under a fresh prefix, results on Redis. */
function celeriacApp(url: string, type: QueueType = 'quorum'): Celeriac {
  const broker = type === 'classic' ? `${url}?queueType=classic` : url;
  return new Celeriac({ broker, backend: REDIS, prefix: `bench-amqp-${randomUUID().slice(0, 8)}` });
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
    for (const type of ['quorum', 'classic'] as const) {
      for (const level of [20, 100]) {
        // In turn, so the machine's drift falls on both alike.
        const raw = await rawDrain(url, DRAIN, level, type);
        const celeriac = await celeriacDrain(url, DRAIN, level, type);
        rows.push([`drain, ${type}, prefetch/concurrency ${level} (msgs/s)`, fixed(raw), fixed(celeriac)]);
      }
    }
    rows.push(['send and await 10,000 (tasks/s)', '', fixed(await celeriacSendAndAwait(url, AWAITED))]);
    const trip = await celeriacRoundTrip(url, TRIPS);
    rows.push(['round trip p50 / p99 (ms)', '', `${trip.p50.toFixed(2)} / ${trip.p99.toFixed(2)}`]);
    const cost = await delayCost(url, DELAYED);
    rows.push(['sends/s, ready / with a countdown', '', `${fixed(cost.ready)} / ${fixed(cost.delayed)}`]);
    console.log(`RabbitMQ lane, ${new Date().toISOString()}, scale ${SCALE}`);
    console.log('| scenario | raw amqplib | Celeriac (results on Redis) |');
    console.log('| --- | --- | --- |');
    for (const [what, raw, celeriac] of rows) console.log(`| ${what} | ${raw} | ${celeriac} |`);
  } finally {
    await run('rabbitmqctl', ['delete_vhost', vhost]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
