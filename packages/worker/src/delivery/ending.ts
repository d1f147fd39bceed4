/**
 * What the stages of a delivery's pipeline hand on (pipeline.ts): a delivery let through to run, or
 * how its way ended, which the settle stage settles. A stage that ends a delivery says why here;
 * storing, acking and reporting it is the settle stage's alone.
 */
import type { Delivery, RemoteError } from '@celeriac/core';
import type { RevokeReason, TaskDefinition, TaskMessage } from '@celeriac/core/internal';
import type { RunSignal } from '../run-signal';
import type { TaskOutcome } from '../run-task';
import type { DeliveryReading } from './stages/read';

/** A delivery the worker holds, read when it was reserved: what the stages after read start from. */
export interface HeldDelivery {
  readonly delivery: Delivery;
  /** Its message, read when it was reserved. */
  readonly reading: DeliveryReading;
  readonly stop: RunSignal;
}

/** A delivery refuse let through: a readable message of a task this worker knows. */
export interface Admitted {
  readonly kind: 'admitted';
  readonly delivery: Delivery;
  readonly message: TaskMessage;
  readonly definition: TaskDefinition;
  readonly stop: RunSignal;
}

/** A delivery whose task ran to an outcome here. */
export interface Ran {
  readonly kind: 'ran';
  readonly message: TaskMessage;
  readonly definition: TaskDefinition;
  /** The most retries the task gets (the message's, else the task's, else none). */
  readonly maxRetries: number;
  readonly outcome: TaskOutcome;
  /** How long the task function ran, ms (0 when it never began). */
  readonly duration: number;
}

/** How a delivery's way through the stages ended: what the settle stage settles. */
export type Ending =
  /** Too large to read, or unreadable (the read stage's own reading): dead-lettered. */
  | Exclude<DeliveryReading, { kind: 'message' }>
  /** It names a task this worker does not know: FAILURE, dead-lettered. */
  | { readonly kind: 'unknown-task'; readonly message: TaskMessage; readonly error: RemoteError }
  /** It will not run (revoked, expired), or it was stopped mid-run (terminated): REVOKED. */
  | { readonly kind: 'not-run'; readonly message: TaskMessage; readonly reason: RevokeReason }
  /** One of its dependencies did not succeed: FAILURE. */
  | { readonly kind: 'dependency-failed'; readonly message: TaskMessage; readonly error: RemoteError }
  | Ran
  /** Its run was handed back to the queue at shutdown: another delivery owns the outcome now. */
  | { readonly kind: 'handed-back'; readonly message: TaskMessage };

/**
 * The gate's word for a delivery the shutdown took back while it waited for its dependencies: it
 * never ran, so there is nothing to settle and no run span; the worker hands it back.
 */
export const LEFT = 'left';
