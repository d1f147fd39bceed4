/**
 * Dead letters on Redis: a task whose worker processes keep dying is brought back each time its lease
 * lapses, dead-lettered after `maxDeliveries`, inspected, requeued, and then runs to success. Then a
 * task no worker knows is dead-lettered at once, and discarded.
 */
import { randomBytes } from 'node:crypto';
import { TaskFailedError, type Worker } from 'celeriac';
import { createExampleApp, QUEUE } from './app';
import { DOOMED_WORKER_FLAG, runDoomedWorker, runDoomedWorkerProcess } from './doomed-worker';
import { taggedLogger } from './logger';
import { connectRedis, deleteKeys, displayUrl } from './redis';

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const connected = await connectRedis(redisUrl);
  if ('reason' in connected) {
    console.error(`This example needs Redis, and none answered at ${displayUrl(redisUrl)} (${connected.reason}).`);
    console.error('Start one (for example `docker run --rm -p 6379:6379 redis:7`) or set REDIS_URL.');
    process.exit(1); // at once: a timer left by the failed client would hold the process for a while
  }
  const { redis } = connected;
  const prefix = `celeriac-example-dead-letters-${randomBytes(4).toString('hex')}`;
  const { app, buildReport } = createExampleApp({ redisUrl, prefix, crashes: false });
  let worker: Worker | undefined;
  try {
    console.log(`Redis ${displayUrl(redisUrl)}, keys under ${prefix}:*, visibilityTimeout 1s, maxDeliveries 2`);
    const result = buildReport.delay('2024-03');
    await result.sent;
    console.log(`1. Sent reports.build('2024-03') as task ${result.id}`);

    console.log('2. A worker process takes it and dies mid-run; nobody renews its lease any more');
    await runDoomedWorkerProcess(__filename, redisUrl, prefix);

    console.log('3. Another worker process returns the lapsed lease to the queue, takes the task again, and dies too');
    await runDoomedWorkerProcess(__filename, redisUrl, prefix);

    console.log('4. A healthy worker starts here; the second lease lapses and was the last one allowed');
    // Wait as another process would (app.result), from before the worker starts, so the notice is not missed.
    const outcome = app.result<string>(result.id).get({ timeout: '15s', propagate: false });
    worker = app.worker({ queues: [QUEUE], concurrency: 1, logger: taggedLogger(`worker ${process.pid} (healthy)`) });
    await worker.start();
    const failure = await outcome;
    if (!(failure instanceof TaskFailedError))
      throw new Error(`Expected the task to fail, got ${JSON.stringify(failure)}`);
    console.log(`   state ${await result.state()}: ${failure.remote.name}: ${failure.remote.message}`);

    const dead = await app.broker.listDead(QUEUE);
    console.log(`   app.broker.listDead('${QUEUE}'):`);
    for (const letter of dead)
      console.log(`     ${letter.id} at ${new Date(letter.at).toISOString()}: ${letter.reason}`);
    console.log(`   app.broker.stats('${QUEUE}'): ${JSON.stringify(await app.broker.stats(QUEUE))}`);

    console.log('5. Requeue it: it gets a fresh delivery count, and the healthy worker runs it');
    // The stored FAILURE stays until the new run overwrites it; forget it so the wait below sees the new outcome.
    await result.forget();
    const moved = await app.broker.requeueDead(QUEUE, [result.id]);
    console.log(`   app.broker.requeueDead('${QUEUE}', [id]) moved ${moved}`);
    console.log(`   result: ${JSON.stringify(await result.get({ timeout: '10s' }))} (state ${await result.state()})`);
    console.log(`   app.broker.stats('${QUEUE}'): ${JSON.stringify(await app.broker.stats(QUEUE))}`);

    console.log('6. A task no worker knows is dead-lettered at once; it will never run, so discard it');
    const unknown = app.sendTask('reports.retired', [], { queue: QUEUE });
    const unknownOutcome = await unknown.get({ timeout: '10s', propagate: false });
    console.log(
      `   state ${await unknown.state()}: ` +
        `${unknownOutcome instanceof TaskFailedError ? unknownOutcome.remote.name : 'unexpected success'}`,
    );
    // The worker records the FAILURE first (so the sender hears at once), then dead-letters the
    // message; stopping it waits for both.
    await worker.close();
    worker = undefined;
    const [letter] = await app.broker.listDead(QUEUE);
    console.log(`   app.broker.listDead('${QUEUE}'): ${letter?.id}: ${letter?.reason}`);
    const discarded = await app.broker.discardDead(QUEUE, [unknown.id]);
    console.log(`   app.broker.discardDead('${QUEUE}', [id]) discarded ${discarded}`);
    console.log(`   app.broker.stats('${QUEUE}'): ${JSON.stringify(await app.broker.stats(QUEUE))}`);
  } finally {
    await worker?.close();
    await app.close();
    const deleted = await deleteKeys(redis, prefix);
    console.log(`Cleaned up: deleted the ${deleted} keys under ${prefix}:*`);
    await redis.quit();
  }
}

if (process.argv[2] === DOOMED_WORKER_FLAG) {
  runDoomedWorker(process.argv[3] as string, process.argv[4] as string).catch((error: unknown) => {
    console.error('The doomed worker could not start:', error);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
