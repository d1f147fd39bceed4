/**
 * The messages between a worker and its pool children, defined once for both sides: a versioned,
 * string-tagged union. Messages that leave together travel as one list (one pipe write). Children
 * never talk to the broker; the parent owns leases and settling.
 */
import type { RemoteError } from '@celeriac/core';

/** Bumped on any incompatible change; both sides refuse other versions. */
export const PROTOCOL_VERSION = 9;

/** Parent → child. */
export type ParentMessage =
  | {
      v: typeof PROTOCOL_VERSION;
      type: 'run';
      jobId: string;
      /** The encoded task message, as the broker delivered it. */
      body: string;
      deliveries: number;
      maxRetries: number;
      softTimeLimit?: number;
      /** The worker's run span, which the task function runs under (tracing on). */
      traceparent?: string;
      /**
       * The child's only job (the fork pool): it reads no memory figure after it, and the job's
       * task context is the whole process's (runAsSoleTask). Never for a child that runs more.
       */
      last?: true;
    }
  | { v: typeof PROTOCOL_VERSION; type: 'abort'; jobId: string; reason: string }
  /**
   * Take back a job queued behind a long one, if it has not begun (so another child runs it): the
   * child answers 'withdrawn', or it has sent (or sends now) 'began' for it.
   */
  | { v: typeof PROTOCOL_VERSION; type: 'withdraw'; jobId: string };

/** How a run ended, with the value encoded by the app's codec. */
export type WireOutcome =
  /** A plain value (no types to restore) as JSON text, which the worker stores as it is. */
  | { kind: 'success'; json: string }
  /** Any other value, encoded by the app's codec. */
  | { kind: 'success'; value: string }
  | { kind: 'retry'; delay: number; error: RemoteError }
  | { kind: 'failure'; error: RemoteError };

/**
 * Child → parent. Every job sent ends in exactly one of: 'began' then 'done' (the child ran it),
 * 'withdrawn' (given back unrun), or 'done' alone (aborted before it began). Only these say whether
 * a job began: the parent never guesses, so a job it hands back can never also run in the child.
 */
export type ChildMessage =
  | { v: typeof PROTOCOL_VERSION; type: 'ready'; pid: number }
  | { v: typeof PROTOCOL_VERSION; type: 'start-failed'; error: RemoteError }
  /** The child is exiting: the parent closes the pipe, which the child waits for (parent-pipe.ts). */
  | { v: typeof PROTOCOL_VERSION; type: 'exiting' }
  /** The child begins the job now: from here on it runs it, and a withdraw no longer takes it back. */
  | { v: typeof PROTOCOL_VERSION; type: 'began'; jobId: string }
  | { v: typeof PROTOCOL_VERSION; type: 'report'; jobId: string; state: string; meta: string }
  /** A hook of the job's task threw (the outcome stands): the worker logs it. */
  | { v: typeof PROTOCOL_VERSION; type: 'hook-error'; jobId: string; hook: string; error: RemoteError }
  /**
   * `rss` (the child's resident memory, bytes; at most 50 ms old while more jobs wait in the child)
   * lets the parent retire a child that grew past `maxMemoryPerChild`; `ms` is how long the job ran
   * in the child, for the parent's queue depths. Without a 'began' before it, the job was aborted
   * while it waited in the child and never ran.
   */
  | { v: typeof PROTOCOL_VERSION; type: 'done'; jobId: string; outcome: WireOutcome; rss: number; ms: number }
  /** A withdrawn job that had not begun: it was dropped from the child's queue. */
  | { v: typeof PROTOCOL_VERSION; type: 'withdrawn'; jobId: string };

/** True for a message of this protocol version. */
export function isChildMessage(value: unknown): value is ChildMessage {
  return typeof value === 'object' && value !== null && (value as { v?: unknown }).v === PROTOCOL_VERSION;
}

/** True for a message of this protocol version. */
export function isParentMessage(value: unknown): value is ParentMessage {
  return typeof value === 'object' && value !== null && (value as { v?: unknown }).v === PROTOCOL_VERSION;
}

/** The outcome of a job aborted (revoked, handed back) before it began, in the parent or the child. */
export function abortedBeforeStart(reason: unknown): Extract<WireOutcome, { kind: 'failure' }> {
  return {
    kind: 'failure',
    error: { name: 'AbortError', message: reason instanceof Error ? reason.message : String(reason) },
  };
}
