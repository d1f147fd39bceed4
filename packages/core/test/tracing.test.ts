/**
 * Tracing in core: the W3C traceparent format, the send span a publish opens (a child of the
 * caller's active span, its traceparent in the message headers), and nothing at all while no tracer
 * provider is registered.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { CeleriacCore } from '@celeriac/core';
import { formatTraceparent, parseTraceparent, runtimeOf, tracingOn } from '@celeriac/core/internal';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceparent', () => {
  it('parses and formats the version 00 form', () => {
    expect(parseTraceparent(VALID)).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
    });
    expect(formatTraceparent(parseTraceparent(VALID)!)).toBe(VALID);
  });

  it.each([
    ['upper-case hex', VALID.toUpperCase()],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero span id', `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`],
    ['version ff', VALID.replace(/^00/, 'ff')],
    ['version 00 with more fields', `${VALID}-extra`],
    ['anything else', 'hello'],
  ])('refuses %s', (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('accepts a later version with more fields (forward compatible)', () => {
    expect(parseTraceparent(`01-${VALID.slice(3)}-future`)?.spanId).toBe('00f067aa0ba902b7');
  });
});

function memoryApp(): CeleriacCore {
  return new CeleriacCore({ broker: 'memory://' });
}

describe('the send span', () => {
  afterEach(() => {
    trace.disable();
    context.disable();
  });

  it('does nothing while no tracer provider is registered: no span, no header', async () => {
    expect(tracingOn()).toBe(false);
    const app = memoryApp();
    const sent: Array<Record<string, string>> = [];
    const broker = runtimeOf(app).broker;
    const publish = broker.publish.bind(broker);
    broker.publish = (envelopes) => {
      for (const envelope of envelopes) sent.push(runtimeOf(app).decode(envelope.body).headers);
      return publish(envelopes);
    };
    await app.sendTask('math.add', [1, 2], { headers: { tenant: 'a' } }).sent;
    expect(sent).toEqual([{ tenant: 'a' }]);
    await app.close();
  });

  it("is a child of the caller's span and puts its traceparent in the message headers", async () => {
    const exporter = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    expect(tracingOn()).toBe(true);
    const app = memoryApp();
    const id = await trace.getTracer('test').startActiveSpan('caller', async (caller) => {
      const sent = app.sendTask('math.add', [1, 2], { queue: 'fast', headers: { tenant: 'a' } });
      await sent.sent;
      caller.end();
      return sent.id; // not the handle: it is a promise of the result, which no worker here makes
    });
    const [send, caller] = exporter.getFinishedSpans();
    expect(caller?.name).toBe('caller');
    expect(send).toMatchObject({
      name: 'send math.add',
      kind: SpanKind.PRODUCER,
      attributes: {
        'celeriac.task.name': 'math.add',
        'celeriac.task.id': id,
        'celeriac.queue': 'fast',
        'celeriac.task.retries': 0,
        'messaging.system': 'celeriac',
        'messaging.operation.type': 'send',
      },
    });
    expect(send?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(send?.spanContext().traceId).toBe(caller?.spanContext().traceId);
    const [delivery] = await runtimeOf(app).broker.reserve(['fast'], 1);
    const headers = runtimeOf(app).decode(delivery!.body).headers;
    expect(headers).toEqual({ tenant: 'a', traceparent: formatTraceparent(send!.spanContext()) });
    await app.close();
  });

  it('ends failed when the arguments do not serialize, and the call throws as before', () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const app = memoryApp();
    expect(() => app.sendTask('math.add', [() => 1])).toThrow();
    expect(exporter.getFinishedSpans()).toMatchObject([
      { name: 'send math.add', status: { code: SpanStatusCode.ERROR } },
    ]);
    return app.close();
  });
});

describe('a traceparent header given by the caller', () => {
  it('is refused at the call site when malformed, with the option and the format named', async () => {
    const app = memoryApp();
    expect(() => app.sendTask('math.add', [1, 2], { headers: { traceparent: 'nope' } })).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_INVALID_OPTION',
        message: expect.stringMatching(/^Invalid headers\.traceparent: "nope"; expected a W3C traceparent/),
      }),
    );
    await app.close();
  });
});
