/**
 * A delivery's way through the worker: five stages it passes once, in order, whatever the transport.
 *
 *   read ──(held until a slot runs it)──► refuse ──► gate ──► run ──► settle
 *
 * - read (stages/read.ts), when the worker reserves it: its message, or why it cannot be read.
 * - refuse: ends what must not run (unreadable, revoked, expired, unknown task); admits the rest.
 * - gate: holds an admitted task until it may run (its dependencies); may end it instead.
 * - run: runs the admitted task and gives its slot back; ends with how the run ended.
 * - settle: stores, then acks, retries or dead-letters, whichever way the delivery ended.
 *
 * A stage either passes the delivery on or ends it, and an ending skips the stages left but settle.
 * The run span is opened once, after the gate (a wait for dependencies is no part of the run), and
 * spans the run and the settling.
 */
import { RecordsRefusedError } from '@celeriac/core';
import type { RunContext } from '../run-context';
import { startRunSpan, traced } from '../tracing/run-span';
import { LEFT, type HeldDelivery } from './ending';
import { gate } from './stages/gate';
import { refuse } from './stages/refuse';
import { runJob } from './stages/run';
import { deadLetterRefused, settle } from './stages/settle';

// The read stage runs when the worker reserves a delivery; the worker holds the reading until a slot runs it.
export { readDelivery } from './stages/read';

/**
 * Passes a held delivery through the stages after read, in the slot just taken for it; throws only
 * when settling failed (the lease then brings the task back). `held.stop` aborts the run (terminate,
 * shutdown).
 */
export async function runDelivery(run: RunContext, held: HeldDelivery): Promise<void> {
  const { delivery } = held;
  try {
    const refused = refuse(run, held);
    const gated = refused.kind === 'admitted' ? gate(run, refused) : refused;
    // Only a task with dependencies waits at the gate: the others pass it without an await.
    const passed = gated instanceof Promise ? await gated : gated;
    if (passed === LEFT) return;
    const span = 'message' in passed ? startRunSpan(passed.message, delivery.deliveries) : undefined;
    const ending = passed.kind === 'admitted' ? await runJob(run, passed, span?.traceparent) : passed;
    if (span === undefined) await settle(run, delivery, ending);
    else await traced(span, ending, () => settle(run, delivery, ending));
  } catch (error) {
    if (!(error instanceof RecordsRefusedError)) throw error;
    await deadLetterRefused(run, delivery, error);
  } finally {
    run.released(delivery.id);
  }
}
