/** `at(date)`: a one-off slot. A plain `Date` given as an entry's schedule means the same. */
import { invalidSchedule, type Schedule, type SlotRange } from './schedule';

/**
 * Fires once, at `when` (a Date, epoch ms, or an ISO 8601 string). A date that has already passed
 * when the entry is first seen does not fire. An invalid date is reported by `app.schedule()`.
 */
export function at(when: Date | number | string): Schedule {
  return new AtSchedule(new Date(when).getTime(), when);
}

class AtSchedule implements Schedule {
  readonly spec;

  constructor(
    private readonly time: number,
    private readonly given: unknown,
  ) {
    this.spec = { kind: 'at' as const, at: time };
  }

  validate(): void {
    if (!Number.isFinite(this.time))
      throw invalidSchedule(
        `at() got an invalid date: ${JSON.stringify(this.given)}. Use a Date, epoch milliseconds or an ISO 8601 ` +
          `string.`,
      );
  }

  next(after: number): number | undefined {
    this.validate();
    return this.time > after ? this.time : undefined;
  }

  slotsBetween(after: number, until: number): SlotRange {
    this.validate();
    return { slots: this.time > after && this.time <= until ? [this.time] : [], dropped: 0 };
  }

  toString(): string {
    return Number.isFinite(this.time) ? `at ${new Date(this.time).toISOString()}` : 'at an invalid date';
  }
}
