/** Schedules from data (a stored entry's spec) and from what users pass as an entry's `schedule`. */
import type { ScheduleSpec } from '@celeriac/core';
import { at } from './at';
import { crontab } from './crontab';
import { every } from './every';
import { invalidSchedule, type Schedule } from './schedule';

/** What an entry's `schedule` may be: `crontab(...)`, `every(...)`, `at(...)`, or a Date (once). */
export type ScheduleInput = Schedule | Date;

/** Rebuilds a schedule from its data form; throws `CELERIAC_INVALID_SCHEDULE` when it is not one. */
export function scheduleFromSpec(spec: ScheduleSpec): Schedule {
  const data = spec as Partial<Record<string, unknown>> | null;
  let schedule: Schedule | undefined;
  switch (data?.kind) {
    case 'crontab':
      if (typeof data.expression === 'string' && (data.tz === undefined || typeof data.tz === 'string'))
        schedule = crontab(data.expression, { tz: data.tz });
      break;
    case 'every':
      if (typeof data.every === 'number' && (data.anchor === undefined || typeof data.anchor === 'number'))
        schedule = every(data.every, { anchor: data.anchor });
      break;
    case 'at':
      if (typeof data.at === 'number') schedule = at(data.at);
      break;
  }
  if (!schedule)
    throw invalidSchedule(
      `Not a schedule: ${JSON.stringify(spec)}. Expected { kind: 'crontab', expression, tz? }, { kind: 'every', ` +
        `every, anchor? } or { kind: 'at', at }.`,
    );
  schedule.validate();
  return schedule;
}

/** The schedule of an entry, validated; throws `CELERIAC_INVALID_SCHEDULE` when it is none. */
export function toSchedule(input: ScheduleInput): Schedule {
  if (input instanceof Date) {
    const schedule = at(input);
    schedule.validate();
    return schedule;
  }
  if (!isSchedule(input)) {
    throw invalidSchedule(`Its schedule must be crontab(...), every(...), at(...) or a Date, got ${describe(input)}.`);
  }
  input.validate();
  return input;
}

function isSchedule(value: unknown): value is Schedule {
  const candidate = value as Partial<Schedule> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.next === 'function' &&
    typeof candidate.validate === 'function' &&
    typeof candidate.spec === 'object'
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)} (wrap a cron expression in crontab(...))`;
  return value === null ? 'null' : typeof value;
}
