/**
 * The replay window of signed messages. A signature proves who wrote a message, not that this is
 * the first time it runs: anyone who can write to the broker can copy a signed body. A worker
 * therefore runs a signed message only under the id it was signed for (a copy stored under a new
 * id is refused) and only within `signatureMaxAge` of the time it became due: its eta, or when it
 * was sent. A retry is signed again with the time it is due again, so retries stay inside the window.
 */
import { CeleriacError } from '../errors';

/** What a worker checks of a signed message it is about to run. */
export interface DeliveryCheck {
  /** The id the broker holds the message under. */
  readonly id: string;
  /** How long after it became due a signed message may still run, in ms. */
  readonly maxAge: number;
  /** Epoch ms now. @defaultValue `Date.now()` */
  readonly now?: number;
}

/** The fields of a signed message the window looks at (all covered by its signature). */
interface Signed {
  readonly id: string;
  readonly task: string;
  readonly publishedAt?: number;
  readonly eta?: number;
}

/**
 * Throws when a signed message is a copy under another id (`CELERIAC_BAD_SIGNATURE`) or became due
 * more than `maxAge` ago (`CELERIAC_SIGNATURE_EXPIRED`).
 */
export function checkReplayWindow(message: Signed, check: DeliveryCheck): void {
  if (message.id !== check.id) {
    throw new CeleriacError(
      'CELERIAC_BAD_SIGNATURE',
      `The message was signed for task id ${message.id} but is stored as ${check.id}: it is a copy of another task's ` +
        `message (a replay), not a call of this app.`,
    );
  }
  const due = Math.max(message.publishedAt ?? 0, message.eta ?? 0);
  const age = (check.now ?? Date.now()) - due;
  if (age > check.maxAge) {
    throw new CeleriacError(
      'CELERIAC_SIGNATURE_EXPIRED',
      `The signed message of ${message.task}[${message.id}] became due ${Math.round(age / 1000)} s ago, beyond ` +
        `signatureMaxAge (${Math.round(check.maxAge / 1000)} s): it may be a replay, so it is not run. Send the task ` +
        `again, or raise signatureMaxAge when queues legitimately wait this long.`,
    );
  }
}
