/**
 * Endings of a delivery's way through the worker that other files do not reach: a run handed back at
 * shutdown (its run span says HANDED_BACK); a task handed back while it waits for its dependency
 * (unrun, unrecorded, no run span, and a later worker runs it); and a task whose record the backend
 * refuses (dead-lettered, for it would be refused on every run; its run span says settling failed).
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Codec, MemoryBackend, RecordsRefusedError, type CeleriacEvent, type StoreEntry } from '@celeriac/core';
import { deferred } from '@celeriac/core/testing';
import { currentTask } from 'celeriac';
import { useApp } from './support/app';
import { useInMemoryTracing } from './support/in-memory-tracing';

const exporter = useInMemoryTracing();
const exportSpans = exporter.export.bind(exporter);
afterEach(() => {
  exporter.export = exportSpans;
});

/** The finished spans named `name`. */
function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

/** Resolves with the first span named `name` that ends from now on (each is exported as it ends). */
function nextEnded(name: string): Promise<ReadableSpan> {
  const exportBefore = exporter.export.bind(exporter);
  return new Promise((resolve) => {
    exporter.export = (spans, done) => {
      exportBefore(spans, done);
      const span = spans.find((each) => each.name === name);
      if (span) resolve(span);
    };
  });
}

describe('a delivery handed back at shutdown', () => {
  const t = useApp();
  beforeEach(() => exporter.reset());

  it('mid-run: its run span ends HANDED_BACK, and the task waits in its queue again', async () => {
    const began = deferred();
    const stubborn = t.app.task('ending.stubborn', () => {
      began.resolve();
      // Ends only when the shutdown, past its timeout, aborts it.
      return new Promise<never>((_resolve, reject) =>
        currentTask().signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    });
    const ended = nextEnded('run ending.stubborn');
    const result = stubborn.delay();
    const worker = await t.startWorker({ shutdownTimeout: 20 });
    await began.promise;
    await worker.close();
    const run = await ended;
    expect(run.attributes).toMatchObject({ 'celeriac.task.id': result.id, 'celeriac.task.outcome': 'HANDED_BACK' });
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 1, active: 0, dead: 0 });
  });

  it('while it waits for its dependency: unrun, unrecorded, no run span; a later worker runs it', async () => {
    const first = t.app.task('ending.first', () => 'first');
    let runs = 0;
    const after = t.app.task('ending.after', () => ++runs);
    const echo = t.app.task('ending.echo', (value: string) => value);
    // The dependency waits in a queue the first worker does not consume.
    const dependency = first.applyAsync([], { queue: 'elsewhere' });
    const dependent = after.applyAsync([], { dependsOn: [dependency] });
    await dependent.sent;
    const worker = await t.startWorker({ concurrency: 1 });
    // One slot, taken by the dependent first: `free` runs once the dependent gave it up to wait.
    await expect(echo.delay('free')).resolves.toBe('free');
    await worker.close();

    expect(await dependent.state()).toBe('PENDING');
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 1, active: 0, dead: 0 });
    expect(spansNamed('run ending.after')).toEqual([]);
    const ran = nextEnded('run ending.after');
    await t.startWorker({ queues: ['default', 'elsewhere'] });
    await expect(dependent).resolves.toBe(1);
    expect(runs).toBe(1);
    // The one run span is the later worker's.
    expect((await ran).attributes['celeriac.task.outcome']).toBe('SUCCESS');
    expect(spansNamed('run ending.after')).toHaveLength(1);
  });
});

/** A memory backend that refuses the SUCCESS records of `ending.refused`, as a backend refuses one it cannot keep. */
class RefusingBackend extends MemoryBackend {
  override async store(entries: readonly StoreEntry[], events?: readonly CeleriacEvent[]): Promise<void> {
    const refused = new Map<string, Error>();
    for (const { record } of entries) {
      if (record.task === 'ending.refused' && record.state === 'SUCCESS')
        refused.set(record.id, new Error('the record is too large to keep'));
    }
    await super.store(
      entries.filter((entry) => !refused.has(entry.record.id)),
      events,
    );
    if (refused.size > 0) throw new RecordsRefusedError(refused);
  }
}

describe('a task whose record the backend refuses', () => {
  const t = useApp({ broker: 'memory://', backend: new RefusingBackend(new Codec()) });
  beforeEach(() => exporter.reset());

  it('is dead-lettered with why, and its run span says settling failed', async () => {
    const ran = deferred();
    const task = t.app.task('ending.refused', () => {
      ran.resolve();
      return 'kept nowhere';
    });
    const result = task.delay();
    const worker = await t.startWorker();
    await ran.promise;
    // The worker's close waits for the runs it holds, dead-lettering included.
    await worker.close();

    const [dead] = await t.app.broker.listDead('default');
    expect(dead).toMatchObject({ id: result.id, reason: 'result not stored: the record is too large to keep' });
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 0, active: 0, dead: 1 });
    expect(await result.state()).toBe('PENDING');
    const [run, ...more] = spansNamed('run ending.refused');
    expect(more).toEqual([]);
    expect(run?.status.code).toBe(SpanStatusCode.ERROR);
    expect(run?.attributes['celeriac.task.outcome']).toBeUndefined();
  });
});
