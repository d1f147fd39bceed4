/**
 * Event ids (`<epoch ms>-<sequence>`, and `.<index>` for the events of one stream entry): ordering,
 * and the id just before a point in time.
 */

/** Negative, zero or positive as `a` is before, equal to or after `b`. */
export function compareEventIds(a: string, b: string): number {
  return compareEventIdParts(eventIdParts(a), eventIdParts(b));
}

/** An event id read into numbers, to compare many ids with one without reading it each time. */
export type EventIdParts = readonly [ms: number, seq: number, index: number];

/** Negative, zero or positive as the id of `a` is before, equal to or after that of `b`. */
export function compareEventIdParts(a: EventIdParts, b: EventIdParts): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  return a[1] !== b[1] ? a[1] - b[1] : a[2] - b[2];
}

/** A cursor that reads every event from `ms` on (ids are exclusive cursors). */
export function eventIdBefore(ms: number): string {
  return ms <= 0 ? '0-0' : `${Math.floor(ms) - 1}-18446744073709551615`;
}

/**
 * An id's time, sequence and index within its entry (-1 for an entry's own id, which comes before
 * its events). The index is a whole number: read as a decimal fraction, `.10` would sort before `.9`.
 */
export function eventIdParts(id: string): EventIdParts {
  const dash = id.indexOf('-');
  const dot = id.indexOf('.', dash);
  const ms = Number(dash < 0 ? id : id.slice(0, dash));
  if (dash < 0) return [ms, 0, -1];
  const seq = Number(dot < 0 ? id.slice(dash + 1) : id.slice(dash + 1, dot));
  return [ms, seq, dot < 0 ? -1 : Number(id.slice(dot + 1))];
}
