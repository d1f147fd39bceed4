/**
 * The `run` span of a task on the worker: a child of the sender's `send` span (its `traceparent`
 * travels in the message headers), opened once by the delivery's pipeline around the task's run and
 * the settling after it, so the workflow steps it sends are children of it. It lives in the worker's
 * main process, whatever the pool; a pool child runs the task function under its context
 * (with-traceparent.ts).
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
import type { Ending } from '../delivery/ending';
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

/**
 * Runs `settle` under the run span (so the workflow steps it sends are children of it), then ends
 * the span as `ending` says: its outcome, its error, and why a task did not run.
 */
export async function traced(span: RunSpan, ending: Ending, settle: () => Promise<void>): Promise<void> {
  if (ending.kind === 'not-run') span.revoked(ending.reason);
  try {
    await span.within(settle);
  } catch (settleError) {
    span.fail(settleError);
    throw settleError;
  }
  switch (ending.kind) {
    case 'ran': {
      const { outcome } = ending;
      return span.end(spanOutcome(outcome), outcome.kind === 'success' ? undefined : outcome.error);
    }
    case 'not-run':
      return span.end('REVOKED');
    case 'unknown-task':
    case 'dependency-failed':
      // The trace says why the task never ran.
      return span.end('FAILURE', ending.error);
    case 'handed-back':
      return span.end('HANDED_BACK');
    case 'too-large':
    case 'unreadable':
      // Unread, there is no message to name a span by: never traced.
      return span.end('FAILURE');
  }
}

/** The span outcome of a run's outcome. */
function spanOutcome(outcome: TaskOutcome): RunSpanOutcome {
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
