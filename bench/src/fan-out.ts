/**
 * Fan-out from one process (issue #26): a Celeriac `group` of N no-op tasks awaited, a `chord` of N
 * with a sum callback, and BullMQ's FlowProducer with N children and a parent that sums their values.
 * The workers (and BullMQ's parent worker) run in a process of their own at c=100.
 */
import { Celeriac, chord, group } from 'celeriac';
import { FlowProducer, QueueEvents } from 'bullmq';
import type Redis from 'ioredis';
import { measured, type Sample } from './caller-measure';
import { startRemoteWorker } from './remote';
import { BULLMQ_SUM_QUEUE, connectionOf } from './round-trip-worker';

const URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const CONCURRENCY = 100;

/** A Celeriac `group` of `size` no-op tasks, sent and awaited. */
export async function celeriacGroup(size: number, prefix: string, admin: Redis): Promise<Sample> {
  const app = new Celeriac({ broker: URL, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  const worker = await startRemoteWorker('celeriac', URL, prefix, CONCURRENCY);
  try {
    return await measured(
      size,
      async () => void (await group(Array.from({ length: size }, (_, i) => noop.s(i))).applyAsync()),
      admin,
    );
  } finally {
    await worker.stop();
    await app.close();
  }
}

/** A Celeriac `chord` of `size` no-op tasks whose callback sums their values, sent and awaited. */
export async function celeriacChord(size: number, prefix: string, admin: Redis): Promise<Sample> {
  const app = new Celeriac({ broker: URL, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  const sum = app.task('bench.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));
  const worker = await startRemoteWorker('celeriac', URL, prefix, CONCURRENCY);
  try {
    return await measured(
      size,
      async () => {
        const total = await chord(
          Array.from({ length: size }, (_, i) => noop.s(i)),
          sum.s(),
        ).applyAsync();
        if (total !== (size * (size - 1)) / 2) throw new Error(`chord sum ${total} is wrong`);
      },
      admin,
    );
  } finally {
    await worker.stop();
    await app.close();
  }
}

/** BullMQ's FlowProducer: a parent with `size` no-op children, whose worker sums their values. */
export async function bullmqFlow(size: number, prefix: string, admin: Redis): Promise<Sample> {
  const flows = new FlowProducer({ connection: connectionOf(URL), prefix });
  const events = new QueueEvents(BULLMQ_SUM_QUEUE, { connection: connectionOf(URL), prefix });
  await events.waitUntilReady();
  const worker = await startRemoteWorker('bullmq', URL, prefix, CONCURRENCY, true);
  try {
    return await measured(
      size,
      async () => {
        const { job } = await flows.add({
          name: 'sum',
          queueName: BULLMQ_SUM_QUEUE,
          children: Array.from({ length: size }, (_, i) => ({ name: 'noop', queueName: 'bench', data: { i } })),
        });
        const total = (await job.waitUntilFinished(events)) as number;
        if (total !== (size * (size - 1)) / 2) throw new Error(`flow sum ${total} is wrong`);
      },
      admin,
    );
  } finally {
    await worker.stop();
    await events.close();
    await flows.close();
  }
}
