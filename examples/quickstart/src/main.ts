/**
 * The quickstart: starts an in-process worker, sends four tasks, prints their results and the states
 * each one went through, then closes the app so the process exits on its own.
 */
import 'reflect-metadata';
import type { AsyncResult, Celeriac, TaskRecord } from 'celeriac';
import { chooseBroker } from './broker-choice';

/** Records every state change of a task as the backend stores it (a notification, not a poll). */
function watch(app: Celeriac, result: AsyncResult<unknown>): { records: TaskRecord[]; stop(): void } | undefined {
  const records: TaskRecord[] = [];
  const stop = app.backend.onChange?.(result.id, (record) => {
    // Skip a repeated notice of the same record (the memory backend can report one twice).
    const last = records.at(-1);
    if (last && last.state === record.state && last.date === record.date && last.retries === record.retries) return;
    records.push(record);
  });
  return stop && { records, stop };
}

function describe(record: TaskRecord): string {
  if (record.state === 'RETRY') {
    const { countdown } = record.meta as { countdown: number };
    return `RETRY in ${countdown} ms (${record.error?.name}: ${record.error?.message})`;
  }
  if (record.state === 'PROGRESS') {
    const { done, total } = record.meta as { done: number; total: number };
    return `PROGRESS ${done}/${total}`;
  }
  return record.state;
}

async function main(): Promise<void> {
  const { demo, broker, reason } = await chooseBroker();
  console.log(`Broker: ${broker} (${reason})`);
  const { app, add, flaky, crunch, invoices } = demo;
  try {
    const worker = app.worker({ concurrency: 4, pool: 'inline' });
    await worker.start();

    // Sending returns at once; the four tasks run concurrently on the worker.
    const calls = [
      { label: 'math.add(2, 3)', result: add.delay(2, 3) },
      { label: 'demo.flaky(2)', result: flaky.delay(2) },
      { label: 'demo.crunch(5)', result: crunch.delay(5) },
      { label: 'invoices.total([19.5, 5.25])', result: invoices.total.delay([19.5, 5.25]) },
    ];
    const watches = calls.map((call) => watch(app, call.result));

    for (const [index, call] of calls.entries()) {
      const value = await call.result.get({ timeout: '30s' });
      console.log(`${call.label} = ${JSON.stringify(value)}`);
      const watched = watches[index];
      if (watched) {
        watched.stop();
        console.log(`  states: ${watched.records.map(describe).join(' -> ')}`);
      } else {
        console.log(`  (this result backend does not report state changes as they happen)`);
      }
    }
  } finally {
    // Closes the worker and every connection, so nothing keeps the process alive.
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
