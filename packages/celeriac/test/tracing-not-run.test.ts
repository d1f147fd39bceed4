/**
 * A task that never runs still ends its trace with why: removed from its queue by a revoke or a
 * purge, a `revoke`/`purge` span, child of its `send` span and linked to the span that removed it;
 * refused by a worker (revoked before it was sent, or expired), a `run` span that ends REVOKED and
 * names the reason; a task no worker registered, or whose dependency failed, a `run` span that
 * failed with the error. Spans are read from the OpenTelemetry SDK's in-memory exporter.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { AsyncResult } from 'celeriac';
import { useApp } from './support/app';
import { useInMemoryTracing } from './support/in-memory-tracing';
import { itWhere } from './support/declared';

const exporter = useInMemoryTracing();

/** The one finished span named `name` of task `id`. */
function spanOf(name: string, id: string): ReadableSpan {
  const found = exporter
    .getFinishedSpans()
    .filter((span) => span.name === name && span.attributes['celeriac.task.id'] === id);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** Runs `work` under a new active span named `name`; returns its result and the span's ids. */
async function within<T>(name: string, work: () => Promise<T>): Promise<{ value: T; traceId: string; spanId: string }> {
  return trace.getTracer('test').startActiveSpan(name, async (span) => {
    const value = await work();
    span.end();
    return { value, ...span.spanContext() };
  });
}

describe('the trace of a task that never ran', () => {
  const t = useApp();
  beforeEach(() => exporter.reset());

  itWhere('revokeRemoves', (c) => c.revokeRemoves)(
    'ends with a revoke span, child of the send and linked to the revoker, when a revoke removes it',
    async () => {
      const task = t.app.task('traced.waits', () => 'ran');
      const caller = await within('caller', async () => {
        const waiting = task.delay();
        await waiting.sent;
        return { waiting }; // not the handle itself: an async function would wait for its value
      });
      const operator = await within('operator', () => caller.value.waiting.revoke());
      await expect(caller.value.waiting.state()).resolves.toBe('REVOKED');

      const send = spanOf('send traced.waits', caller.value.waiting.id);
      const revoke = spanOf('revoke traced.waits', caller.value.waiting.id);
      expect(revoke.kind).toBe(SpanKind.INTERNAL);
      expect(revoke.spanContext().traceId).toBe(caller.traceId);
      expect(revoke.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
      expect(revoke.attributes).toMatchObject({
        'celeriac.task.outcome': 'REVOKED',
        'celeriac.task.revoke_reason': 'revoked',
        'celeriac.queue': 'default',
      });
      expect(revoke.links.map((link) => link.context.spanId)).toEqual([operator.spanId]);
    },
  );

  it('ends with a purge span when its queue is purged', async () => {
    const task = t.app.task('traced.purged', () => 'ran');
    const waiting = task.delay();
    await waiting.sent;
    await expect(t.app.purge()).resolves.toBe(1);
    const purge = spanOf('purge traced.purged', waiting.id);
    expect(purge.parentSpanContext?.spanId).toBe(spanOf('send traced.purged', waiting.id).spanContext().spanId);
    expect(purge.attributes['celeriac.task.revoke_reason']).toBe('purged');
  });

  it.each([
    ['revoked before it was sent', 'revoked'],
    ['expired before a worker took it', 'expired'],
  ] as const)('ends with a run span that says REVOKED and why, when %s', async (_case, reason) => {
    let runs = 0;
    const task = t.app.task('traced.refused', () => ++runs);
    let result: AsyncResult<number>;
    if (reason === 'revoked') {
      await t.app.revoke('refused-early');
      result = task.applyAsync([], { taskId: 'refused-early' });
    } else {
      result = task.applyAsync([], { expires: new Date(Date.now() - 1_000) });
    }
    await result.sent;
    const worker = await t.startWorker();
    await expect(result).rejects.toMatchObject({ reason });
    expect(runs).toBe(0);
    // The run span ends once its task is settled, after the record that woke the wait: closed
    // after every settle, the worker has ended it.
    await worker.close();

    const run = spanOf('run traced.refused', result.id);
    expect(run.kind).toBe(SpanKind.CONSUMER);
    expect(run.parentSpanContext?.spanId).toBe(spanOf('send traced.refused', result.id).spanContext().spanId);
    expect(run.attributes).toMatchObject({
      'celeriac.task.outcome': 'REVOKED',
      'celeriac.task.revoke_reason': reason,
    });
  });

  it.each(['no worker knows the task', 'its dependency failed'] as const)(
    'ends with a run span that failed, saying why, when %s',
    async (why) => {
      const worker = await t.startWorker();
      let result: AsyncResult<unknown>;
      if (why === 'no worker knows the task') {
        result = t.app.sendTask('traced.never', []);
      } else {
        t.app.task('traced.never', () => 'ran');
        const failing = t.app.task('traced.fails', () => {
          throw new Error('the dependency fails');
        });
        const failed = failing.delay();
        await failed.catch(() => undefined);
        result = t.app.sendTask('traced.never', [], { dependsOn: [failed.id] });
      }
      await expect(result).rejects.toThrow(why === 'no worker knows the task' ? /traced.never/ : /dependency/);
      await worker.close();
      const run = spanOf('run traced.never', result.id);
      expect(run.parentSpanContext?.spanId).toBe(spanOf('send traced.never', result.id).spanContext().spanId);
      expect(run.attributes['celeriac.task.outcome']).toBe('FAILURE');
      expect(run.status).toMatchObject({ code: SpanStatusCode.ERROR });
      expect(run.events.map((event) => event.name)).toEqual(['exception']);
    },
  );
});
