/** Runs a task function under the worker's run span, wherever the function runs (inline, pool child). */
import { context } from '@opentelemetry/api';
import { contextOf, tracingOn } from '@celeriac/core/internal';

/**
 * Runs `work` under the context a `traceparent` names (the run span, from the worker's main
 * process), so spans the task function opens are its children. Runs it as it is when there is no
 * traceparent or no tracer provider.
 */
export function withTraceparent<T>(traceparent: string | undefined, work: () => T): T {
  if (traceparent === undefined || !tracingOn()) return work();
  return context.with(contextOf(traceparent), work);
}
