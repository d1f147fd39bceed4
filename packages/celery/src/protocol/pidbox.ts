/**
 * Celery's remote control, as far as revoke goes: `app.control.revoke(id)` in Python is a `revoke`
 * command on the `celery.pidbox` fanout exchange, which every Celery worker listening at that moment
 * adds to its revoked set. A Celeriac worker hears the same command, and a Celeriac revoke sends it,
 * so a revoke reaches the workers of both languages. Only commands for every worker count here: one
 * with a `destination` names Python workers. The command is the body; how it travels is the
 * transport's (kombu-redis/pidbox-message.ts on Redis).
 */
import type { Revocation, TerminateSignal } from '@celeriac/core';

/** Celery's control exchange (`<namespace>.pidbox`, the namespace being `celery`). */
export const PIDBOX_EXCHANGE = 'celery.pidbox';

/** A control command as Celery's Mailbox sends it. */
interface ControlCommand {
  method?: unknown;
  arguments?: { task_id?: unknown; terminate?: unknown; signal?: unknown };
  destination?: unknown;
  pattern?: unknown;
}

/** The pidbox command of `app.control.revoke(id, terminate=..., signal=...)` for a Celeriac revocation. */
export function revokeCommand(revocation: Revocation): Record<string, unknown> {
  return {
    method: 'revoke',
    arguments: {
      task_id: revocation.id,
      terminate: revocation.terminate,
      signal: revocation.signal ?? 'SIGTERM',
    },
    destination: null,
    pattern: null,
    matcher: null,
  };
}

/**
 * The revocations in a pidbox command (the message's body, undefined when it was not JSON): those of
 * a `revoke` (or `terminate`) command sent to every worker; none for any other command or one sent
 * to named workers.
 */
export function revocationsIn(body: unknown): Revocation[] {
  const command = body as ControlCommand | undefined;
  if (!command || typeof command !== 'object') return [];
  if (command.method !== 'revoke' && command.method !== 'terminate') return [];
  if (command.destination != null || command.pattern != null) return [];
  const args = command.arguments ?? {};
  const ids = (Array.isArray(args.task_id) ? args.task_id : [args.task_id]).filter(
    (id): id is string => typeof id === 'string' && id.length > 0,
  );
  const terminate = command.method === 'terminate' || args.terminate === true;
  const signal = terminate ? terminateSignal(args.signal) : undefined;
  return ids.map((id) => ({ id, terminate, ...(signal ? { signal } : {}) }));
}

/** Celery names signals `SIGKILL`, `KILL` or by number; anything but a kill terminates with SIGTERM. */
function terminateSignal(signal: unknown): TerminateSignal {
  const name = typeof signal === 'string' || typeof signal === 'number' ? String(signal).toUpperCase() : '';
  return name === 'SIGKILL' || name === 'KILL' || name === '9' ? 'SIGKILL' : 'SIGTERM';
}
