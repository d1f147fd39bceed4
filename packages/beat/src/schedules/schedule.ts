/**
 * What every schedule is: data (`spec`, storable and comparable) plus the arithmetic of its slots.
 * A slot is an instant (epoch ms) at which the entry is due; slot times are the same in every
 * process, so a slot names one firing everywhere.
 */
import { CeleriacError, type ScheduleSpec } from '@celeriac/core';

/** Slots in a time range, as {@link Schedule.slotsBetween} returns them. */
export interface SlotRange {
  /** The latest slots of the range, in ascending order. */
  readonly slots: readonly number[];
  /** How many earlier slots of the range were left out; `'many'` when they were not counted. */
  readonly dropped: number | 'many';
}

/** When an entry is due: made by `crontab()`, `every()` or `at()`. */
export interface Schedule {
  /** The schedule as plain data. */
  readonly spec: ScheduleSpec;
  /**
   * Throws `CELERIAC_INVALID_SCHEDULE` when the schedule cannot work (a bad cron expression or time
   * zone, a zero interval, an invalid date). `app.schedule()` calls it and names the entry.
   */
  validate(): void;
  /** The first slot strictly after `after` (epoch ms), or `undefined` when none is left. */
  next(after: number): number | undefined;
  /** The slots in `(after, until]`: the latest `limit` of them, and how many earlier ones were left out. */
  slotsBetween(after: number, until: number, limit: number): SlotRange;
  /** A short description, e.g. `cron "0 3 * * *" (Asia/Shanghai)` or `every 30s`. */
  toString(): string;
}

/** The error of an invalid schedule; `app.schedule()` adds the entry's name. */
export function invalidSchedule(message: string, cause?: unknown): CeleriacError {
  return new CeleriacError('CELERIAC_INVALID_SCHEDULE', message, cause === undefined ? undefined : { cause });
}

/** A string that is equal for equal schedules: stored with each entry's last slot to notice changes. */
export function fingerprint(spec: ScheduleSpec): string {
  switch (spec.kind) {
    case 'crontab':
      return `crontab ${spec.expression} ${spec.tz ?? 'UTC'}`;
    case 'every':
      return `every ${spec.every} ${spec.anchor ?? 0}`;
    case 'at':
      return `at ${spec.at}`;
  }
}
