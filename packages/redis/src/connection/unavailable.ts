/** Turns a lost connection into the error callers can branch on, naming the broker and why. */
import { BrokerUnavailableError, CeleriacError } from '@celeriac/core';
import { isNoPermission, noPermission } from './no-permission';
import { isSlotMoving } from './slot-migration';
import { redactUrl } from '@celeriac/core/internal';

/** What the message says about the connection: its URL, and why its last attempt failed. */
export interface ConnectionFacts {
  readonly url: string;
  readonly lastError: Error | undefined;
}

/** Messages of connection failures, of one node or of a cluster (no master for a slot, no node reachable). */
const CONNECTION_LOST =
  /Connection is closed|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ECONNRESET|CLUSTERDOWN|startup nodes|slots cache/;

/**
 * Wraps connection failures in BrokerUnavailableError and ACL refusals in `CELERIAC_NO_PERMISSION`; passes other errors
 * through.
 */
export function unavailable(error: unknown, action: string, connection: ConnectionFacts): unknown {
  if (error instanceof CeleriacError) return error;
  if (isNoPermission(error)) return noPermission(error, action);
  const message = error instanceof Error ? error.message : String(error);
  if (isSlotMoving(error)) {
    return new BrokerUnavailableError(
      `Could not ${action}: the Redis Cluster at ${redactUrl(connection.url)} kept moving the slot it needs ` +
        `between masters (${message}). Try again once the resharding is done.`,
      { cause: error },
    );
  }
  const retriesUsed = error instanceof Error && error.name === 'MaxRetriesPerRequestError';
  const connectionLost = retriesUsed || CONNECTION_LOST.test(message);
  if (!connectionLost) return error;
  // ioredis's "max retries per request" says nothing about why: the socket's last error does.
  const socketError = retriesUsed ? connection.lastError : undefined;
  return new BrokerUnavailableError(
    `Could not ${action}: Redis at ${redactUrl(connection.url)} is unreachable (${socketError?.message ?? message}). ` +
      `Check that Redis runs and that the broker URL is right.`,
    { cause: socketError ?? error },
  );
}

/** Runs `call`, throwing a lost connection as BrokerUnavailableError (see {@link unavailable}). */
export async function orUnavailable<T>(
  action: string,
  connection: ConnectionFacts,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw unavailable(error, action, connection);
  }
}
