/**
 * Slows down guessing: after a few wrong credentials in a row, a client (by address) is refused
 * for a while without its credentials being checked, twice as long after each further failure.
 * A correct sign-in clears its count; a client that has not failed for a while is forgotten.
 *
 * States of one client: free (fewer than FREE_FAILURES failures) → locked until a time (the
 * FREE_FAILURES-th failure locks it, each further one doubles the lock) → free again after a
 * success or FORGET_MS.
 */

/** Wrong credentials a client may send in a row before it is locked out. */
export const FREE_FAILURES = 10;
/** The first lock; each further failure doubles it, up to MAX_LOCK_MS. */
const FIRST_LOCK_MS = 60_000;
const MAX_LOCK_MS = 3_600_000;
/** A client that has not failed for this long starts over. */
const FORGET_MS = 24 * 3_600_000;
/** Most clients remembered; past it the one that failed longest ago is forgotten. */
const MAX_CLIENTS = 10_000;

interface Failures {
  count: number;
  last: number;
  lockedUntil: number;
}

/** Counts failed sign-ins per client. */
export class LoginThrottle {
  private readonly clients = new Map<string, Failures>();

  constructor(private readonly now: () => number = Date.now) {}

  /** How long `client` is still locked out, in ms (0: it may try). */
  lockedFor(client: string): number {
    const failures = this.current(client);
    return failures === undefined ? 0 : Math.max(0, failures.lockedUntil - this.now());
  }

  /** Records a failed sign-in of `client`. */
  failed(client: string): void {
    const now = this.now();
    const failures = this.current(client) ?? { count: 0, last: now, lockedUntil: 0 };
    failures.count += 1;
    failures.last = now;
    const past = failures.count - FREE_FAILURES + 1;
    if (past > 0) failures.lockedUntil = now + Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** Math.min(past - 1, 16));
    // Re-inserted, so the map stays in order of the last failure.
    this.clients.delete(client);
    if (this.clients.size >= MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value as string);
    this.clients.set(client, failures);
  }

  /** Clears the failures of `client`, which signed in. */
  succeeded(client: string): void {
    this.clients.delete(client);
  }

  private current(client: string): Failures | undefined {
    const failures = this.clients.get(client);
    if (failures !== undefined && this.now() - failures.last > FORGET_MS) {
      this.clients.delete(client);
      return undefined;
    }
    return failures;
  }
}
