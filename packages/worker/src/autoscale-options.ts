/**
 * The `autoscale` worker option (Celery's `--autoscale MAX,MIN`): its type, its defaults, and its
 * checks, including the CLI's `MAX,MIN` text.
 */
import { CeleriacError, type Duration } from '@celeriac/core';
import { toMilliseconds } from '@celeriac/core/internal';

/** Bounds of a pool that grows while tasks wait and shrinks when idle (prefork and fork pools). */
export interface AutoscaleOptions {
  /** The most tasks run at once: the pool grows up to this many children while tasks wait. */
  max: number;
  /**
   * The fewest tasks run at once: the pool starts at this size and never shrinks below it.
   * @defaultValue `1`
   */
  min?: number;
  /**
   * How long a slot must stay unused before the pool shrinks by it (Celery's autoscaler keepalive).
   * @defaultValue `'30s'`
   */
  idle?: Duration;
}

/** `autoscale` after defaults; `idle` in ms. */
export interface ResolvedAutoscale {
  readonly min: number;
  readonly max: number;
  readonly idle: number;
}

/** The pools that can change their size while they run. */
export const AUTOSCALE_POOLS = ['prefork', 'fork'] as const;

const AUTOSCALE_DEFAULTS = { min: 1, idle: '30s' } as const satisfies Partial<AutoscaleOptions>;

/**
 * Checks `autoscale` against the rest of the worker's options; throws `CELERIAC_INVALID_OPTION`
 * saying what to change. `concurrency` is what the caller gave (undefined: left to its default).
 */
export function resolveAutoscale(
  autoscale: AutoscaleOptions | undefined,
  pool: string,
  concurrency: number | undefined,
): ResolvedAutoscale | undefined {
  if (autoscale === undefined) return undefined;
  if (typeof autoscale !== 'object' || autoscale === null)
    throw invalid('autoscale', autoscale, 'an object { max, min?, idle? }');
  const { max, min = AUTOSCALE_DEFAULTS.min, idle = AUTOSCALE_DEFAULTS.idle } = autoscale;
  if (!Number.isInteger(max) || max < 1) throw invalid('autoscale.max', max, 'an integer of at least 1');
  if (!Number.isInteger(min) || min < 1) throw invalid('autoscale.min', min, 'an integer of at least 1');
  if (min > max)
    throw invalid('autoscale', `${max},${min}`, `MAX,MIN with MAX at least MIN (did you mean ${min},${max}?)`);
  if (!(AUTOSCALE_POOLS as readonly string[]).includes(pool))
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `Invalid worker option autoscale with pool ${JSON.stringify(pool)}: only the ` +
        `${AUTOSCALE_POOLS.join(' and ')} pools change their size while they run. Use pool 'prefork' ` +
        `(--pool prefork) or set a fixed concurrency instead.`,
    );
  if (concurrency !== undefined)
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `Invalid worker options concurrency ${concurrency} and autoscale ${max},${min} together: with autoscale ` +
        `the pool size moves between min and max (it starts at min). Give one of them.`,
    );
  return { min, max, idle: toMilliseconds(idle, 'autoscale.idle') };
}

/**
 * Reads the CLI's `MAX,MIN` (or `MAX` alone, min then 1), as Celery's `--autoscale` takes it; throws
 * `CELERIAC_INVALID_OPTION` for anything else.
 */
export function parseAutoscale(text: string): { max: number; min?: number } {
  const parts = text.split(',').map((part) => part.trim());
  const numbers = parts.map((part) => (/^\d+$/.test(part) ? Number(part) : Number.NaN));
  const [max, min] = numbers;
  if (parts.length > 2 || max === undefined || numbers.some((n) => !Number.isInteger(n) || n < 1))
    throw invalid('autoscale', text, 'MAX,MIN: two positive integers, the larger first (e.g. 10,3), or MAX alone');
  return min === undefined ? { max } : { max, min };
}

function invalid(option: string, value: unknown, expected: string): CeleriacError {
  return new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `Invalid worker option ${option}: ${JSON.stringify(value)}; expected ${expected}.`,
  );
}
