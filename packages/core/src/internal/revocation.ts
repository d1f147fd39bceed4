/**
 * Revocations with terminate: the one place that defaults and checks how a running task is stopped
 * (the signal that kills its pool child, and the grace before it), on the sending and the worker side.
 */
import type { RevokeOptions } from '../async-result';
import type { Revocation, TerminateSignal } from '../broker';
import { toMilliseconds } from '../duration';
import { CeleriacError } from '../errors';

/** How long a terminated task may run on after its signal aborted, by default (ms). */
export const TERMINATE_GRACE_MS = 1_000;

const SIGNALS: readonly TerminateSignal[] = ['SIGTERM', 'SIGKILL'];

/** How a worker stops a running task revoked with terminate. */
export interface Termination {
  /** The signal a pool child still running the task is killed with. */
  readonly signal: TerminateSignal;
  /** How long after the task's signal aborted (ms). */
  readonly graceMs: number;
}

/** The revocation `revoke(id, options)` stores; throws on an invalid `signal` or `grace`. */
export function buildRevocation(id: string, options: RevokeOptions): Revocation {
  const terminate = options.terminate ?? false;
  if (options.signal !== undefined && !SIGNALS.includes(options.signal)) {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `revoke(): signal must be 'SIGTERM' or 'SIGKILL', got ${JSON.stringify(options.signal)}.`,
    );
  }
  const grace = options.grace === undefined ? undefined : toMilliseconds(options.grace, 'grace');
  if (!terminate) return { id, terminate };
  return { id, terminate, ...(options.signal && { signal: options.signal }), ...(grace !== undefined && { grace }) };
}

/** How to stop the task of a revocation read from the broker (defaults for missing or unknown values). */
export function terminationOf(revocation: Revocation): Termination {
  const signal = revocation.signal === 'SIGKILL' ? 'SIGKILL' : 'SIGTERM';
  const grace = revocation.grace;
  const graceMs = typeof grace === 'number' && grace >= 0 ? grace : TERMINATE_GRACE_MS;
  return { signal, graceMs };
}
