/**
 * Celeriac's OpenTelemetry spans, through `@opentelemetry/api` only: the application registers a
 * tracer provider (the SDK) if it wants traces. Without one, `tracingOn()` is false and no span
 * work is done on the send and run paths.
 */
import {
  context,
  isSpanContextValid,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { TaskMessage } from '../message';
import { formatTraceparent, parseTraceparent, TRACEPARENT_HEADER } from './traceparent';

/** The instrumentation scope of Celeriac's spans. */
export const TRACER_NAME = 'celeriac';

/** What the global provider hands out while nobody registered one. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** True when a tracer provider is registered (checked per call: one may be registered later). */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_PROVIDER);
}

/** Celeriac's tracer. */
export function celeriacTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** The attributes naming a task on its spans (messaging conventions, and Celeriac's own). */
export function taskAttributes(message: TaskMessage): Attributes {
  const attributes: Attributes = {
    'messaging.system': 'celeriac',
    'messaging.destination.name': message.queue,
    'messaging.message.id': message.id,
    'celeriac.task.name': message.task,
    'celeriac.task.id': message.id,
    'celeriac.queue': message.queue,
    'celeriac.task.retries': message.retries,
  };
  if (message.parentId !== undefined) attributes['celeriac.task.parent_id'] = message.parentId;
  if (message.rootId !== undefined) attributes['celeriac.task.root_id'] = message.rootId;
  return attributes;
}

/** The `traceparent` of a span, or undefined when its context is not valid (a no-op span). */
export function traceparentOf(span: Span): string | undefined {
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : undefined;
}

/** A context whose span is the remote one a `traceparent` names; `fallback` when there is none. */
export function contextOf(traceparent: string | undefined, fallback: Context = ROOT_CONTEXT): Context {
  const parent = traceparent === undefined ? undefined : parseTraceparent(traceparent);
  return parent === undefined ? fallback : trace.setSpanContext(ROOT_CONTEXT, { ...parent, isRemote: true });
}

/** The context a message's sender left in its headers (the sender's `send` span), if any. */
export function senderContext(message: TaskMessage): Context | undefined {
  const header = message.headers[TRACEPARENT_HEADER];
  return header === undefined ? undefined : contextOf(header);
}

/**
 * Starts the `send` span of a message, a child of the caller's active span, and writes its
 * `traceparent` into the message's headers (before it is encoded). Undefined when tracing is off.
 */
export function startSendSpan(message: TaskMessage): Span | undefined {
  if (!tracingOn()) return undefined;
  const span = celeriacTracer().startSpan(
    `send ${message.task}`,
    { kind: SpanKind.PRODUCER, attributes: { ...taskAttributes(message), 'messaging.operation.type': 'send' } },
    context.active(),
  );
  const traceparent = traceparentOf(span);
  if (traceparent !== undefined) message.headers = { ...message.headers, [TRACEPARENT_HEADER]: traceparent };
  return span;
}

/** Why a task never ran, as a span's `celeriac.task.revoke_reason` says. */
export type RevokeReason = 'revoked' | 'purged' | 'expired' | 'terminated';

/**
 * Records, in the trace of a task removed from its queue before it ran (a revoke or a purge), a
 * short span saying so: a child of the task's `send` span, so its trace ends with why it never ran,
 * and linked to the span active where it was removed (an operator's request, say). Nothing when
 * tracing is off.
 */
export function traceRemoved(message: TaskMessage, reason: 'revoked' | 'purged'): void {
  if (!tracingOn()) return;
  const remover = trace.getSpanContext(context.active());
  celeriacTracer()
    .startSpan(
      `${reason === 'purged' ? 'purge' : 'revoke'} ${message.task}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          ...taskAttributes(message),
          'celeriac.task.outcome': 'REVOKED',
          'celeriac.task.revoke_reason': reason,
        },
        ...(remover && isSpanContextValid(remover) ? { links: [{ context: remover }] } : {}),
      },
      senderContext(message) ?? context.active(),
    )
    .end();
}

/** Ends a span once `done` settles: with an error status when it rejects. */
export function endWhenSettled(span: Span, done: Promise<unknown>): void {
  done.then(
    () => span.end(),
    (error: unknown) => failSpan(span, error),
  );
}

/** Ends a span as failed with `error`. */
export function failSpan(span: Span, error: unknown): void {
  recordError(span, error);
  span.end();
}

/** Marks a span failed with `error`. */
export function recordError(span: Span, error: unknown): void {
  const exception = error instanceof Error ? error : new Error(String(error));
  span.recordException(exception);
  span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message });
}
