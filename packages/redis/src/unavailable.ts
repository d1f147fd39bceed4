/** Turns a lost connection into the error callers can branch on. */
import { BrokerUnavailableError, CeleriacError } from '@celeriac/core';
import { isNoPermission, noPermission } from './no-permission';

/** Wraps connection failures in BrokerUnavailableError and ACL refusals in `CELERIAC_NO_PERMISSION`; passes other errors through. */
export function unavailable(error: unknown, action: string): unknown {
  if (error instanceof CeleriacError) return error;
  if (isNoPermission(error)) return noPermission(error, action);
  const message = error instanceof Error ? error.message : String(error);
  const connectionLost =
    (error instanceof Error && error.name === 'MaxRetriesPerRequestError') || /Connection is closed|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ECONNRESET/.test(message);
  if (!connectionLost) return error;
  return new BrokerUnavailableError(`Could not ${action}: Redis is unreachable (${message}). Check that Redis runs and that the broker URL is right.`, { cause: error });
}
