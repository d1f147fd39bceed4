/** Durations: numbers of milliseconds, or strings such as `'500ms'`, `'30s'`, `'5m'`, `'1h'`, `'1d'`. */
import { CeleriacError } from './errors';

/** A unit a duration string may end with. */
export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

/** Milliseconds as a number, or a string like `'30s'`. */
export type Duration = number | `${number}${DurationUnit}`;

const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * Converts a {@link Duration} to milliseconds.
 * @param what - names the option in the error message, e.g. `countdown`.
 * @throws CeleriacError `CELERIAC_INVALID_DURATION` for negative, non-finite or malformed values.
 */
export function toMilliseconds(value: Duration, what = 'duration'): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value;
  } else if (typeof value === 'string') {
    const match = PATTERN.exec(value.trim());
    if (match) return Math.round(Number(match[1]) * UNIT_MS[match[2] as DurationUnit]);
  }
  throw new CeleriacError(
    'CELERIAC_INVALID_DURATION',
    `Invalid ${what}: ${JSON.stringify(value)}. Use a number of milliseconds (>= 0) or a string like '500ms', '30s', ` +
      `'5m', '1h' or '1d'.`,
  );
}

/** Like {@link toMilliseconds}, but passes `undefined` through. */
export function optionalMilliseconds(value: Duration | undefined, what: string): number | undefined {
  return value === undefined ? undefined : toMilliseconds(value, what);
}
