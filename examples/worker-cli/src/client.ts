/**
 * The client: sends tasks to whatever `celeriac worker` consumes the example's queue, prints what
 * comes back (including the TimeLimitExceededError of the hung task), then closes its connections.
 */
import { TaskFailedError, type AsyncResult, type TaskState } from 'celeriac';
import { app, convert, fib, hang, PREFIX, REDIS_URL } from './tasks';

async function main(): Promise<void> {
  console.log(`Sending to ${REDIS_URL.replace(/\/\/[^@/]*@/, '//***@')} under the prefix ${PREFIX}`);
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

  // 1. A task that never returns takes one pool child... (each wait starts as its task is sent)
  const hung = hang.delay();
  const hungOutcome = hung.get({ timeout: '30s', propagate: false });
  await reached(hung, 'STARTED');
  console.log(`demo.hang is running and will never return; its hard limit is 1 s (${elapsed()})`);

  // 2. ...while the other child keeps serving.
  const sums = [30, 31, 32, 33].map((n) => fib.delay(n).get({ timeout: '30s' }));
  const converting = convert.delay('report.pdf', 3);
  const converted = converting.get({ timeout: '30s' });
  const stopListening = app.backend.onChange?.(converting.id, (record) => {
    if (record.state === 'PROGRESS') console.log(`  demo.convert progress: ${JSON.stringify(record.meta)}`);
  });
  for (const sum of sums) {
    const { n, value, pid } = await sum;
    console.log(`cpu.fib(${n}) = ${value}, computed by pool child ${pid} (${elapsed()})`);
  }
  console.log(`demo.convert: ${await converted} (${elapsed()})`);
  stopListening?.();

  // 3. At its hard limit the worker kills the hung task's child; the task fails with TimeLimitExceededError.
  const failure = await hungOutcome;
  if (!(failure instanceof TaskFailedError))
    throw new Error(`Expected demo.hang to fail, got ${JSON.stringify(failure)}`);
  console.log(
    `demo.hang: ${await hung.state()} with ${failure.remote.name} (${failure.remote.code}): ` +
      `${failure.remote.message} (${elapsed()})`,
  );

  // 4. The worker goes on, with a fresh child in place of the killed one.
  const pids = await Promise.all([20, 21].map(async (n) => (await fib.delay(n).get({ timeout: '30s' })).pid));
  console.log(
    `cpu.fib(20) and cpu.fib(21) after the kill: the worker keeps serving (children ${pids.join(', ')}) (${elapsed()})`,
  );

  for (const worker of (await app.broker.listWorkers?.()) ?? []) {
    const age = ((Date.now() - worker.heartbeat) / 1000).toFixed(1);
    const bounds = worker.autoscale ? ` (autoscale ${worker.autoscale.max},${worker.autoscale.min})` : '';
    console.log(
      `Heartbeat of ${worker.hostname} (${age} s ago): pool ${worker.pool}, ` +
        `concurrency ${worker.concurrency}${bounds}, queues ${worker.queues.join(',')}`,
    );
  }
}

/** Resolves once the task's stored state is `state`, as the backend announces it (no polling). */
function reached(result: AsyncResult<unknown>, state: TaskState): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = app.backend.onChange?.(result.id, (record) => {
      if (record.state !== state) return;
      stop?.();
      resolve();
    });
    if (!stop) reject(new Error('This result backend cannot announce state changes.'));
  });
}

main()
  .then(() => app.close())
  .catch(async (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
    await app.close();
  });
