/**
 * The `run` span of a task on the worker: a child of the sender's `send` span (its `traceparent`
 * travels in the message headers), around the task's run and the settling after it, so the
 * workflow steps it sends are children of it. It lives in the worker's main process, whatever the
 * pool; a pool child runs the task function under its context (with-traceparent.ts).
 */
import { context, SpanKind, trace, type Context, type Span } from '@opentelemetry/api';
import {
  celeriacTracer,
  recordError,
  senderContext,
  taskAttributes,
  traceparentOf,
  tracingOn,
  type RevokeReason,
  type TaskMessage,
} from '@celeriac/core/internal';
import type { TaskOutcome } from '../run-task';

/** How a traced run ended, as its `celeriac.task.outcome` attribute says. */
export type RunSpanOutcome = 'SUCCESS' | 'FAILURE' | 'RETRY' | 'REVOKED' | 'LOST' | 'HANDED_BACK';

/** A started run span. */
export interface RunSpan {
  /** The `traceparent` of the run span, for a pool child to run the task under. */
  readonly traceparent: string | undefined;
  /** Runs `work` with the run span active, so what it sends joins the trace. */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** Ends the span with the run's outcome (and its error, when it failed). */
  end(outcome: RunSpanOutcome, error?: { name: string; message: string }): void;
  /** Ends the span as failed: settling threw. */
  fail(error: unknown): void;
  /** Says why the task did not run, or stopped (the span then ends `REVOKED`). */
  revoked(reason: RevokeReason): void;
}

/** Starts the run span of a message; undefined when no tracer provider is registered. */
export function startRunSpan(message: TaskMessage, deliveries: number): RunSpan | undefined {
  if (!tracingOn()) return undefined;
  const parent = senderContext(message) ?? context.active();
  const span = celeriacTracer().startSpan(
    `run ${message.task}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...taskAttributes(message),
        'messaging.operation.type': 'process',
        'celeriac.delivery': deliveries,
      },
    },
    parent,
  );
  return runSpanOf(span, context.active());
}

function runSpanOf(span: Span, base: Context): RunSpan {
  const active = trace.setSpan(base, span);
  return {
    traceparent: traceparentOf(span),
    within: (work) => context.with(active, work),
    end(outcome, error) {
      span.setAttribute('celeriac.task.outcome', outcome);
      if (error !== undefined) recordError(span, Object.assign(new Error(error.message), { name: error.name }));
      span.end();
    },
    fail(error) {
      recordError(span, error);
      span.end();
    },
    revoked(reason) {
      span.setAttribute('celeriac.task.revoke_reason', reason);
    },
  };
}

/** The span outcome of a run's outcome. */
export function spanOutcome(outcome: TaskOutcome): RunSpanOutcome {
  switch (outcome.kind) {
    case 'success':
      return 'SUCCESS';
    case 'retry':
      return 'RETRY';
    case 'failure':
      return 'FAILURE';
    case 'lost':
      return 'LOST';
  }
}

/**
 * Runs `settle` under the run span (so the workflow steps it sends are children of it), then ends
 * the span with `outcome`; without a span, just runs it.
 */
export async function traced(
  span: RunSpan | undefined,
  outcome: RunSpanOutcome,
  error: { name: string; message: string } | undefined,
  settle: () => Promise<void>,
): Promise<void> {
  if (span === undefined) return settle();
  try {
    await span.within(settle);
  } catch (settleError) {
    span.fail(settleError);
    throw settleError;
  }
  span.end(outcome, error);
}
