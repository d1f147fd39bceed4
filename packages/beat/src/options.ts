/** Options of a scheduler, with their defaults in one place. */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { CeleriacError, type Duration } from '@celeriac/core';
import { toMilliseconds } from '@celeriac/core/internal';
import { systemClock, type Clock } from './clock';
import { quietBeatLogger, type BeatLogger } from './logger';

/** Options of `app.beat.scheduler(...)` and of the `celeriac beat` command. */
export interface SchedulerOptions {
  /**
   * How long the leader's lease lasts without renewal: a standby takes over at most this long
   * after the leader died. The leader renews it every third of this.
   * @defaultValue `'10s'`
   */
  lease?: Duration;
  /**
   * This scheduler's name in the lease and in logs; must be unique among running schedulers.
   * @defaultValue `<host>:<pid>:<random>`
   */
  id?: string;
  /** Where logs go. @defaultValue warnings and errors to stderr */
  logger?: BeatLogger;
  /** The time and timers, injectable for tests. @defaultValue the system clock */
  clock?: Clock;
}

/** Options after defaults. */
export interface ResolvedSchedulerOptions {
  lease: number;
  id: string;
  logger: BeatLogger;
  clock: Clock;
}

/** Defaults of {@link SchedulerOptions}. */
export const SCHEDULER_DEFAULTS = {
  lease: '10s',
} as const satisfies SchedulerOptions;

/** Most missed slots one entry fires at once with `catchUp: 'all'`. */
export const MAX_CATCH_UP = 100;

/** Applies the defaults and checks the values. */
export function resolveSchedulerOptions(options: SchedulerOptions): ResolvedSchedulerOptions {
  const lease = toMilliseconds(options.lease ?? SCHEDULER_DEFAULTS.lease, 'lease');
  if (lease < 30)
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The scheduler's lease must be at least 30 ms, got ${lease} ms; the default is 10s.`,
    );
  return {
    lease,
    id: options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    logger: options.logger ?? quietBeatLogger,
    clock: options.clock ?? systemClock,
  };
}
