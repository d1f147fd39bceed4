/**
 * Connections that do not hold the process open while they have nothing to do, so a script that
 * sends its tasks, awaits their results and ends without `app.close()` exits, as one would expect.
 * A socket stays referenced while a command of its client is queued or waits for its reply (a
 * blocking wait included); what must outlive a quiet socket holds the process itself: a result
 * being awaited and a running worker or beat (core's `keepProcessAlive`).
 *
 * It reads ioredis's `stream`, `commandQueue` and `offlineQueue`, which are not public API: where a
 * version lacks them, the client keeps its sockets referenced, as ioredis does by default.
 */
import type { RedisClient } from './redis-client';
import { isCluster } from './redis-client';

/** The parts of an ioredis client read here. */
interface Internals {
  stream?: { ref?: () => void; unref?: () => void };
  commandQueue?: { length: number };
  offlineQueue?: { length: number };
  sendCommand: (...args: unknown[]) => unknown;
}

/** How often a client with commands in flight looks again whether it may let go of the process. */
const RECHECK_MS = 20;

const tracked = new WeakSet<object>();

/** Makes `client` let go of the process whenever no command of its own is in flight (not for a Cluster client). */
export function unrefWhenIdle(client: RedisClient): void {
  if (isCluster(client) || tracked.has(client)) return;
  const internals = client as unknown as Internals;
  if (!internals.commandQueue || !internals.offlineQueue) return;
  tracked.add(client);
  let referenced = true;
  let recheck: NodeJS.Timeout | undefined;
  const busy = () => (internals.commandQueue?.length ?? 0) + (internals.offlineQueue?.length ?? 0) > 0;
  const apply = () => {
    const stream = internals.stream;
    if (referenced) stream?.ref?.();
    else stream?.unref?.();
  };
  const settle = () => {
    recheck = undefined;
    if (busy()) {
      recheck = setTimeout(settle, RECHECK_MS).unref();
      return;
    }
    referenced = false;
    apply();
  };
  const send = internals.sendCommand.bind(client);
  internals.sendCommand = (...args: unknown[]) => {
    const sent = send(...args);
    if (!referenced) {
      referenced = true;
      apply();
    }
    recheck ??= setTimeout(settle, RECHECK_MS).unref();
    return sent;
  };
  // A reconnect makes a new socket, referenced: let it go too once nothing is in flight.
  client.on('connect', () => {
    referenced = true;
    apply();
    recheck ??= setTimeout(settle, RECHECK_MS).unref();
  });
  recheck = setTimeout(settle, RECHECK_MS).unref();
}

/** True for a client {@link unrefWhenIdle} tracks: its duplicates are tracked too. */
export function isUnrefWhenIdle(client: RedisClient): boolean {
  return tracked.has(client);
}
