/**
 * Signatures of stored beat entries. With the app's `secret`, an entry added at run time is stored
 * with an HMAC of its fields, and a scheduler fires only entries whose HMAC matches: someone who can
 * write to the store but lacks the secret cannot add an entry and have the leader sign its firings.
 */
import type { StoredBeatEntry } from './beat-store';
import { CeleriacError } from './errors';
import { hmac, sameMac } from './internal/hmac';

/** Tells a beat entry's MAC from a message's: the same secret signs both. */
const DOMAIN = 'celeriac-beat-entry-v1';

/** The entry with its signature when `secret` is set (any old signature is replaced), else as it is. */
export function signBeatEntry(entry: StoredBeatEntry, secret: string | undefined): StoredBeatEntry {
  const { signature: _old, ...unsigned } = entry;
  return secret ? { ...unsigned, signature: hmac(signedText(entry), secret) } : unsigned;
}

/**
 * Throws `CELERIAC_BAD_SIGNATURE` when `secret` is set and the stored entry is unsigned or its
 * signature does not match its fields.
 */
export function checkBeatEntrySignature(entry: StoredBeatEntry, secret: string | undefined): void {
  if (!secret) return;
  const remedy =
    `The scheduler does not fire it. If this app added it before the secret was set or changed, add it ` +
    `again (celeriac beat add or app.beat.add); otherwise someone with write access to the store wrote it: remove it ` +
    `(celeriac beat remove ${JSON.stringify(entry.name)}) and check who can write to Redis.`;
  if (typeof entry.signature !== 'string') {
    throw new CeleriacError(
      'CELERIAC_BAD_SIGNATURE',
      `The stored beat entry ${JSON.stringify(entry.name)} is not signed, but this app requires signed entries ` +
        `(secret is set). ${remedy}`,
    );
  }
  if (!sameMac(entry.signature, hmac(signedText(entry), secret))) {
    throw new CeleriacError(
      'CELERIAC_BAD_SIGNATURE',
      `The signature of the stored beat entry ${JSON.stringify(entry.name)} does not match; it was forged, changed ` +
        `or signed with another secret. ${remedy}`,
    );
  }
}

/** Every field the scheduler acts on, in a fixed order (JSON keeps the nested objects' order through the store). */
function signedText(entry: StoredBeatEntry): string {
  return JSON.stringify([
    DOMAIN,
    entry.name,
    entry.task,
    entry.schedule,
    entry.args,
    entry.options,
    entry.catchUp,
    entry.updatedAt,
  ]);
}
