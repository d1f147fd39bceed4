/**
 * Turns Redis's ACL refusals into an error that says which rules a Celeriac user needs. Redis 7
 * gives new ACL users no pub/sub channels (`acl-pubsub-default resetchannels`), so a user made with
 * `~* +@all` can read and write every key but fails at its first SUBSCRIBE or PUBLISH.
 */
import { CeleriacError } from '@celeriac/core';

/**
 * True for an ACL refusal: `NOPERM ...` from a command, or the refusal of a command inside a script
 * (`The user executing the script can't ...`).
 */
export function isNoPermission(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /\bNOPERM\b|The user executing the script can't/.test(message);
}

/** The `CELERIAC_NO_PERMISSION` error for a refused `action` (e.g. `subscribe to channel celeriac:revoke`). */
export function noPermission(error: unknown, action: string): CeleriacError {
  const message = error instanceof Error ? error.message : String(error);
  return new CeleriacError(
    'CELERIAC_NO_PERMISSION',
    `Could not ${action}: the Redis user's ACL does not allow it (${message}). ` +
      'Redis 7 gives ACL users no pub/sub channels unless granted (acl-pubsub-default resetchannels). ' +
      "Workers, senders and beat need the keys and the channels of the app's prefix: ACL SETUSER <user> ~<prefix>:* " +
      '&<prefix>:* +@all ' +
      '(&* allows every channel). docs/redis.md ("ACL users") lists the channels each one uses.',
    { cause: error },
  );
}
