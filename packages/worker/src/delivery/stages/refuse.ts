/**
 * The refuse stage: ends what must not run, before it takes anything from a run: a message too large
 * to read or unreadable (bad signature, undecodable, invalid), one revoked or expired, and one naming
 * a task this worker does not know. The rest it admits, with the task's definition.
 */
import { UnknownTaskError } from '@celeriac/core';
import { toRemoteError } from '@celeriac/core/internal';
import type { RunContext } from '../../run-context';
import type { Admitted, Ending, HeldDelivery } from '../ending';

/** Admits `held`'s task to run, or says why it must not. */
export function refuse(run: RunContext, held: HeldDelivery): Admitted | Ending {
  const { reading } = held;
  if (reading.kind !== 'message') return reading;
  const { message } = reading;
  if (run.isRevoked(message.id)) return { kind: 'not-run', message, reason: 'revoked' };
  if (message.expires !== undefined && message.expires <= Date.now())
    return { kind: 'not-run', message, reason: 'expired' };
  const definition = run.app.registry.get(message.task);
  if (!definition) {
    const error = toRemoteError(new UnknownTaskError(message.task));
    run.logger.error({ id: message.id, task: message.task }, error.message);
    return { kind: 'unknown-task', message, error };
  }
  return { kind: 'admitted', delivery: held.delivery, message, definition, stop: held.stop };
}
