/** Event ids (`<epoch ms>-<sequence>`): ordering, and the id just before a point in time. */

/** Negative, zero or positive as `a` is before, equal to or after `b`. */
export function compareEventIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs !== bMs ? aMs - bMs : aSeq - bSeq;
}

/** A cursor that reads every event from `ms` on (ids are exclusive cursors). */
export function eventIdBefore(ms: number): string {
  return ms <= 0 ? '0-0' : `${Math.floor(ms) - 1}-18446744073709551615`;
}
