/**
 * OpenTelemetry spans across a real `celeriac worker` process, with each pool: the caller's `send`
 * spans are children of its active span; the worker's `run` span is a child of the `send` span (its
 * `traceparent` travels in the message headers); a span the task opens is a child of the run span,
 * also in a pool child; a chain's next step is sent under the run span of the step before it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { chain, type Celeriac } from 'celeriac';
import { useInMemoryTracing } from '../support/in-memory-tracing';
import { useE2e } from './support/worker-process';

const TRACED_APP = join(__dirname, 'fixtures/traced-app.js');

/** A finished span, from this process or (as the fixture app writes them) from a worker process. */
interface SpanRecord {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Attributes;
  status: { code: number; message?: string };
  pid?: number;
}

const exporter = useInMemoryTracing();

function callerSpans(): SpanRecord[] {
  return exporter.getFinishedSpans().map((span) => {
    const { name, kind, attributes, status } = span;
    const { traceId, spanId } = span.spanContext();
    return { name, kind, traceId, spanId, parentSpanId: span.parentSpanContext?.spanId, attributes, status };
  });
}

/** The spans the worker's processes wrote, one JSON line each. */
function workerSpans(dir: string): SpanRecord[] {
  return readdirSync(dir).flatMap((file) =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SpanRecord),
  );
}

function only(spans: SpanRecord[], match: (span: SpanRecord) => boolean, what: string): SpanRecord {
  const found = spans.filter(match);
  if (found.length !== 1) throw new Error(`Expected one ${what}, found ${found.length}: ${JSON.stringify(spans)}`);
  return found[0] as SpanRecord;
}

describe('tracing across a worker process', () => {
  const e2e = useE2e('e2e-tracing');
  let spansDir: string;

  beforeEach(() => {
    exporter.reset();
    spansDir = mkdtempSync(join(tmpdir(), 'celeriac-spans-'));
  });
  afterEach(() => rmSync(spansDir, { recursive: true, force: true }));

  it.each(['inline', 'prefork', 'fork'] as const)('links send, run and task spans with the %s pool', async (pool) => {
    const { fixture, workers } = e2e();
    const worker = workers.spawn('worker', ['-A', TRACED_APP, '-c', '2', '--pool', pool], {
      CELERIAC_TEST_SPANS_DIR: spansDir,
    });
    await worker.ready();
    const app: Celeriac = fixture.app();
    const add = (...args: number[]) =>
      app.signature<number>({ task: 'traced.add', args, options: {}, immutable: false });

    const tracer = trace.getTracer('test');
    const ids = await tracer.startActiveSpan('caller', async (span) => {
      const sum = app.sendTask<number>('traced.add', [2, 3]);
      const failed = app.sendTask('traced.fail');
      const chained = chain(add(1, 1), add(10)).applyAsync();
      await expect(sum).resolves.toBe(5);
      await expect(failed).rejects.toThrow('traced.fail always fails');
      await expect(chained).resolves.toBe(12);
      span.end();
      return { sum: sum.id, failed: failed.id, chainEnd: chained.id };
    });
    // The run spans end once their tasks are settled: all have ended once the worker has stopped.
    worker.signal('SIGTERM');
    expect((await worker.exited).code).toBe(0);

    const local = callerSpans();
    const caller = only(local, (span) => span.name === 'caller', 'caller span');
    const remote = workerSpans(spansDir);

    // The caller's sends: children of its span, one per task it sent.
    const send = only(local, (span) => span.attributes['celeriac.task.id'] === ids.sum, 'send span of the sum');
    expect(send).toMatchObject({
      name: 'send traced.add',
      kind: SpanKind.PRODUCER,
      traceId: caller.traceId,
      parentSpanId: caller.spanId,
      attributes: { 'celeriac.task.name': 'traced.add', 'celeriac.queue': 'default', 'celeriac.task.retries': 0 },
    });

    // The worker's run: a child of the send, in the worker's main process, whatever the pool.
    const run = only(
      remote,
      (span) => span.name === 'run traced.add' && span.attributes['celeriac.task.id'] === ids.sum,
      'run of the sum',
    );
    expect(run).toMatchObject({
      kind: SpanKind.CONSUMER,
      traceId: caller.traceId,
      parentSpanId: send.spanId,
      pid: worker.child.pid,
      attributes: { 'celeriac.task.outcome': 'SUCCESS', 'celeriac.task.id': ids.sum, 'celeriac.queue': 'default' },
    });
    // The task's own span: a child of the run, in the process that ran the task function.
    const inside = remote.filter((span) => span.name === 'inside traced.add' && span.parentSpanId === run.spanId);
    expect(inside).toHaveLength(1);
    expect(inside[0]?.traceId).toBe(caller.traceId);
    if (pool === 'inline') expect(inside[0]?.pid).toBe(worker.child.pid);
    else expect(inside[0]?.pid).not.toBe(worker.child.pid);

    const failedSend = only(local, (span) => span.attributes['celeriac.task.id'] === ids.failed, 'send of the failure');
    const failedRun = only(
      remote,
      (span) => span.attributes['celeriac.task.id'] === ids.failed && span.name.startsWith('run'),
      'run of the failure',
    );
    expect(failedRun).toMatchObject({
      parentSpanId: failedSend.spanId,
      status: { code: SpanStatusCode.ERROR, message: 'traced.fail always fails' },
      attributes: { 'celeriac.task.outcome': 'FAILURE' },
    });

    // The chain: the caller sends its first step; the worker sends the second under the first's run.
    const chainEndSend = only(
      remote,
      (span) => span.name === 'send traced.add' && span.attributes['celeriac.task.id'] === ids.chainEnd,
      'send of the chain end',
    );
    const firstRun = only(remote, (span) => span.spanId === chainEndSend.parentSpanId, 'run of the first step');
    expect(firstRun).toMatchObject({ name: 'run traced.add', traceId: caller.traceId, pid: worker.child.pid });
    const firstSend = only(local, (span) => span.spanId === firstRun.parentSpanId, 'send of the first step');
    expect(firstSend.parentSpanId).toBe(caller.spanId);
    const endRun = only(
      remote,
      (span) => span.name === 'run traced.add' && span.attributes['celeriac.task.id'] === ids.chainEnd,
      'run of the chain end',
    );
    expect(endRun.parentSpanId).toBe(chainEndSend.spanId);
    await app.close();
  });
});
