/**
 * Celery's pidbox commands (protocol/pidbox.ts, protocol/remote-control.ts) in kombu's Redis fanout
 * envelope (fanout.ts), both ways: what a Celeriac revoke publishes, and what a command heard on the
 * `celery.pidbox` channel asks.
 */
import type { Revocation } from '@celeriac/core';
import { PIDBOX_EXCHANGE, revocationsIn, revokeCommand } from '../protocol/pidbox';
import { controlCallIn, type CeleryControlCall } from '../protocol/remote-control';
import { fanoutBody, fanoutMessage } from './fanout';

/** The header that marks a command a Celeriac app sent (Celery ignores headers it does not know). */
const SENT_BY_CELERIAC = 'x_celeriac';

/** The pidbox message of `app.control.revoke(id, terminate=..., signal=...)` for a Celeriac revocation. */
export function revokeMessage(revocation: Revocation): string {
  // `expires: 0`: no deadline (kombu drops a command past one; clocks of two machines may differ).
  return fanoutMessage(PIDBOX_EXCHANGE, '', revokeCommand(revocation), {
    headers: { clock: 0, expires: 0, [SENT_BY_CELERIAC]: true },
    deliveryMode: 2,
  });
}

/**
 * The revocations a pidbox message asks for (none for another command or a message that is not JSON).
 * @param options.fromPython - only a command Python sent: Celeriac workers hear Celeriac's own on
 * Celeriac's channel (with what Celery's command cannot carry, the grace period).
 */
export function revocationsInMessage(text: string, options: { fromPython?: boolean } = {}): Revocation[] {
  if (options.fromPython && sentByCeleriac(text)) return [];
  return revocationsIn(fanoutBody(text));
}

function sentByCeleriac(text: string): boolean {
  try {
    return (JSON.parse(text) as { headers?: Record<string, unknown> }).headers?.[SENT_BY_CELERIAC] === true;
  } catch {
    return false;
  }
}

/** The Celeriac request a pidbox message asks a worker, or undefined (see {@link controlCallIn}). */
export function controlCallInMessage(text: string, id: () => string): CeleryControlCall | undefined {
  return controlCallIn(fanoutBody(text), id);
}
