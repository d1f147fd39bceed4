/** Where a message comes from beside its call, and how a workflow step is launched. */
import type { Continuation, WorkflowFields } from '../canvas/nodes';
import type { TransactionClient } from '../transaction-client';

/** Where a message comes from, beside its call: lineage, reply channel and workflow fields. */
export interface MessageExtras {
  parentId?: string;
  rootId?: string;
  /** The channel for completion notices; defaults to this client's. */
  replyTo?: string | undefined;
  workflow?: WorkflowFields;
  /** A workflow step: its id is part of the workflow, so it is sent as it is, never debounced. */
  step?: boolean;
}

/** Options of `AppRuntime.launchCanvas`. */
export interface LaunchOptions extends Omit<MessageExtras, 'workflow' | 'step'> {
  /** What runs after the launched node (the rest of a chain, a chord body). */
  next?: Continuation;
  /** Publish as a re-send: a copy still waiting or running is not duplicated. */
  idempotent?: boolean;
  /** Publish through the caller's open transaction (the `transaction` send option). */
  transaction?: TransactionClient;
}

/** Something the app closes when it closes (workers, schedulers). */
export interface Closeable {
  close(): Promise<void>;
}
