/**
 * Browser sessions of a token-protected dashboard: `?token=` opens one, and the browser then holds
 * its random id in a cookie, never the token (which other services on the same host would receive
 * with it). A session ends when it expires, when the browser signs out, or when the dashboard
 * closes: they live only in its memory.
 */
import { randomBytes } from 'node:crypto';

/** Most sessions kept at once; past it the oldest one ends (each takes a valid token to open). */
const MAX_SESSIONS = 10_000;

/** The open sessions of one dashboard. */
export class Sessions {
  /** Session ids and when each expires (epoch ms), oldest first. */
  private readonly expiries = new Map<string, number>();

  constructor(
    /** How long a session lasts, in ms. */
    readonly ttl: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens a session; returns its id. */
  open(): string {
    const id = randomBytes(32).toString('base64url');
    if (this.expiries.size >= MAX_SESSIONS) this.expiries.delete(this.expiries.keys().next().value as string);
    this.expiries.set(id, this.now() + this.ttl);
    return id;
  }

  /** True when `id` names a session that has not expired (an expired one is forgotten). */
  valid(id: string): boolean {
    const expiry = this.expiries.get(id);
    if (expiry === undefined) return false;
    if (expiry > this.now()) return true;
    this.expiries.delete(id);
    return false;
  }

  /** Ends the session `id`. */
  revoke(id: string): void {
    this.expiries.delete(id);
  }

  /** Ends every session. */
  clear(): void {
    this.expiries.clear();
  }
}
