/**
 * The canvas tour: an in-process worker runs a chain, a group, two chords (one of 1,000 tasks), a
 * chain whose failed step calls an errback, a chord whose failed member stops its callback, and a
 * group of 10,000. Each result is checked against the same functions called here, so a wrong answer
 * exits with code 1.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { AsyncResult, chain, chord, group, TaskFailedError, type Logger, type Worker } from 'celeriac';
import { LIBRARY } from './app';
import { chooseBroker } from './broker';

/** Prints the worker's warnings and errors (here: the tasks that fail on purpose) as short lines. */
const workerLog = (_fields: object, message: string) => console.log(`   [worker] ${message}`);
const logger: Logger = { debug: () => undefined, info: () => undefined, warn: workerLog, error: workerLog };

const WAIT = { timeout: '30s' } as const;

async function main(): Promise<void> {
  const { example, description } = await chooseBroker(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  console.log(`Broker: ${description}`);
  const { app, fetchText, countWords, report, square, sum, notify } = example;
  const names = Object.keys(LIBRARY);
  // Task handles are callable: they run the function here, which gives the expected answers.
  const wordsIn = (name: string) => countWords(LIBRARY[name] as string);
  let worker: Worker | undefined;
  try {
    worker = app.worker({ concurrency: 8, pool: 'inline', logger });
    await worker.start();

    // 1. A chain: each step's result is the first argument of the next.
    const line = chain(fetchText.s('harbour'), countWords.s(), report.s('harbour')).applyAsync();
    const reported = await line.get(WAIT);
    console.log(`1. chain(text.fetch, text.words, text.report) = ${JSON.stringify(reported)}`);
    assert.equal(reported, report(wordsIn('harbour'), 'harbour'));
    // applyAsync() returned the last step's handle; `parent` leads back to the first step.
    for (let step = line.parent; step !== undefined; step = step.parent) {
      if (step instanceof AsyncResult)
        console.log(`   parent ${step.taskName} [${step.id}] = ${JSON.stringify(await step.get(WAIT))}`);
    }

    // 2. A group: members run in parallel (each member here is itself a chain); values in order.
    const counts = group(names.map((name) => chain(fetchText.s(name), countWords.s()))).applyAsync();
    const values = await counts.get(WAIT);
    console.log(`2. group of ${names.length} chains = ${JSON.stringify(values)} (${names.join(', ')})`);
    assert.deepEqual(values, names.map(wordsIn));
    console.log(
      `   completedCount() = ${await counts.completedCount()}, ready() = ${await counts.ready()}, member ids ` +
        `${counts.ids[0]} ...`,
    );
    // Anyone who knows the group id and size can read the same results (e.g. another process).
    const again = app.groupResult<number[]>(counts.id, names.length);
    console.log(`   app.groupResult('${counts.id}', ${names.length}) = ${JSON.stringify(await again.get(WAIT))}`);

    // 3. A chord: the body runs once, with the list of the header's results. In a chain, a group
    //    followed by a step is a chord too: here its total goes on to a report.
    const total = chain(
      group(names.map((name) => chain(fetchText.s(name), countWords.s()))),
      sum.s(),
      report.s('all texts'),
    ).applyAsync();
    const totalLine = await total.get(WAIT);
    console.log(`3. chain(group of chains, math.sum, text.report) = ${JSON.stringify(totalLine)}`);
    assert.equal(totalLine, report(sum(names.map(wordsIn)), 'all texts'));

    // 4. A chord of 1,000 members: counted one bit each, the last one to finish starts the body.
    const size = 1_000;
    const started = Date.now();
    const squares = chord(
      Array.from({ length: size }, (_, index) => square.s(index + 1)),
      sum.s(),
    ).applyAsync();
    const sumOfSquares = await squares.get(WAIT);
    console.log(`4. chord(${size} x math.square, math.sum) = ${sumOfSquares} in ${Date.now() - started} ms`);
    assert.equal(sumOfSquares, (size * (size + 1) * (2 * size + 1)) / 6);

    // 5. A chain that fails at its first step: the steps after it fail with the same error, and the
    //    errback added by onError runs once, for the step that failed. It gets a known id here so
    //    that we can wait for its result.
    const alertId = `alert-${randomUUID()}`;
    const broken = chain(fetchText.s('lighthouse'), countWords.s(), report.s('lighthouse'))
      .onError(notify.s().set({ taskId: alertId }))
      .applyAsync();
    const failure = await broken.get({ ...WAIT, propagate: false });
    assert.ok(failure instanceof TaskFailedError);
    console.log(`5. chain with a missing text: ${failure.remote.name}: ${failure.remote.message}`);
    const steps = [broken.parent?.parent, broken.parent, broken].filter((step) => step instanceof AsyncResult);
    console.log(
      `   states: ` +
        `${(await Promise.all(steps.map(async (step) => `${step.taskName} ${await step.state()}`))).join(', ')}`,
    );
    const alert = await app.result<string>(alertId).get(WAIT);
    console.log(`   errback alerts.notify returned: ${alert}`);
    assert.ok(alert.includes(steps[0]?.id as string));

    // 6. A chord with a failing member: the body does not run; its result is a ChordError naming
    //    the member that failed.
    const doomed = chord(
      [chain(fetchText.s('harbour'), countWords.s()), chain(fetchText.s('lighthouse'), countWords.s())],
      sum.s(),
    ).applyAsync();
    const chordFailure = await doomed.get({ ...WAIT, propagate: false });
    assert.ok(chordFailure instanceof TaskFailedError && chordFailure.remote.name === 'ChordError');
    console.log(`6. chord with a failing member: ${chordFailure.remote.name}: ${chordFailure.remote.message}`);

    // 7. A fan-out of 10,000: sent in one batch and awaited as one wait; no handle per member is
    //    made until `results` is read.
    const wide = group(Array.from({ length: 10_000 }, (_, index) => square.s(index))).applyAsync();
    const fanned = Date.now();
    const all = await wide.get(WAIT);
    console.log(`7. group of ${all.length} x math.square awaited in ${Date.now() - fanned} ms; last = ${all.at(-1)}`);
    assert.deepEqual(
      all,
      Array.from({ length: 10_000 }, (_, index) => square(index)),
    );
    assert.equal(await wide.results[9_999]?.get(WAIT), square(9_999));
  } finally {
    // The worker first: it finishes what is still running (the chord's other member, here), then the
    // app closes every connection, so nothing keeps the process alive.
    await worker?.close();
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
