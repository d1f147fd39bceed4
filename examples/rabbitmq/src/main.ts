/**
 * Runs the RabbitMQ example: an in-process worker, a hundred sums sent and awaited, and a task with a
 * countdown that waits in RabbitMQ's delay levels (not in the worker) before it runs.
 */
import { createApp } from './tasks';

async function main(): Promise<void> {
  const amqpUrl = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const { app, add, stamp } = createApp(amqpUrl, redisUrl);
  const worker = app.worker({ concurrency: 8 });
  try {
    await worker.start();
    const sums = await Promise.all(Array.from({ length: 100 }, (_, i) => add.delay(i, i)));
    console.log(`100 sums on RabbitMQ, the last: ${sums[99]}`);
    const later = stamp.applyAsync(['countdown of 1 s'], { countdown: '1s' });
    await later.sent;
    console.log('delayed:', (await app.broker.stats('default')).delayed, 'task(s) waiting in RabbitMQ');
    console.log(await later);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
