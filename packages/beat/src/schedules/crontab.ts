/**
 * `crontab('0 3 * * *', { tz: 'Asia/Shanghai' })`: cron expressions through cron-parser, with 5
 * fields (minute first) or 6 (seconds first), in an IANA time zone (UTC by default).
 *
 * Daylight saving time follows cron-parser's rules, walking forward from the last slot: a local
 * time that a spring-forward change skips fires once, right after the change (02:30 becomes
 * 03:30); a local time that a fall-back change repeats fires once, at its first occurrence.
 * Interval fields over the hour (`0 * * * *`) keep firing every real hour through both changes.
 * Slots are only ever computed forward (`next`), which keeps those rules the same in every process.
 */
import type { CronExpression } from 'cron-parser';
import { invalidSchedule, type Schedule, type SlotRange } from './schedule';

/** Options of {@link crontab}. */
export interface CrontabOptions {
  /**
   * The IANA time zone the fields are read in, e.g. `'Asia/Shanghai'`, `'America/New_York'`.
   * @defaultValue `'UTC'`
   */
  tz?: string;
}

/** How many slots a catch-up walks forward before it jumps to the end of the range. */
const WALK_LIMIT = 2_000;

/**
 * Fires on a cron expression: `'*\/5 * * * *'` (every five minutes), `'0 3 * * *'` (03:00 daily),
 * `'0 0 9 * * 1-5'` (09:00:00 on weekdays, 6 fields). Aliases such as `'@daily'` work too. A bad
 * expression or time zone is reported by `app.schedule()`, naming the entry.
 */
export function crontab(expression: string, options: CrontabOptions = {}): Schedule {
  return new CronSchedule(typeof expression === 'string' ? expression.trim() : expression, options.tz);
}

class CronSchedule implements Schedule {
  readonly spec;
  private compiled: CronExpression | CeleriacErrorLike | undefined;

  constructor(
    private readonly expression: string,
    private readonly tz: string | undefined,
  ) {
    this.spec =
      tz === undefined ? { kind: 'crontab' as const, expression } : { kind: 'crontab' as const, expression, tz };
  }

  validate(): void {
    this.cron();
  }

  next(after: number): number | undefined {
    const cron = this.cron();
    cron.reset(new Date(after));
    return step(() => cron.next());
  }

  slotsBetween(after: number, until: number, limit: number): SlotRange {
    const cron = this.cron();
    cron.reset(new Date(after));
    const slots: number[] = [];
    for (let steps = 0; steps < WALK_LIMIT; steps += 1) {
      const slot = step(() => cron.next()) ?? Infinity;
      if (slot > until) {
        const dropped = Math.max(0, slots.length - limit);
        return { slots: slots.slice(dropped), dropped };
      }
      slots.push(slot);
    }
    // A long outage: find the start of the last `limit` slots backwards, then walk forward from
    // there, so the slots returned are the ones `next` produces.
    cron.reset(new Date(until + 1));
    let start = until;
    for (let taken = 0; taken < limit; taken += 1) start = step(() => cron.prev()) ?? start;
    const tail = this.slotsBetween(start - 1, until, limit);
    return { slots: tail.slots, dropped: 'many' };
  }

  toString(): string {
    return `cron "${this.expression}" (${this.tz ?? 'UTC'})`;
  }

  private cron(): CronExpression {
    this.compiled ??= this.compile();
    if (this.compiled instanceof Error) throw this.compiled;
    return this.compiled;
  }

  private compile(): CronExpression | CeleriacErrorLike {
    const { expression, tz } = this;
    if (typeof expression !== 'string' || expression.length === 0) {
      return invalidSchedule(
        `crontab() needs a cron expression such as '0 3 * * *', got ${JSON.stringify(expression)}.`,
      );
    }
    const fields = expression.split(/\s+/).length;
    if (!expression.startsWith('@') && (fields < 5 || fields > 6)) {
      return invalidSchedule(
        `Invalid cron expression "${expression}": it has ${fields} fields; use 5 (minute hour day-of-month month ` +
          `day-of-week) or 6 (seconds first).`,
      );
    }
    if (tz !== undefined && !isTimeZone(tz)) {
      return invalidSchedule(
        `Unknown time zone "${tz}" for cron expression "${expression}". Use an IANA name such as 'Asia/Shanghai', ` +
          `'Europe/Berlin' or 'UTC'.`,
      );
    }
    try {
      // Loaded on first use: every process that loads an app (pool children too) would pay for it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { CronExpressionParser } = require('cron-parser') as typeof import('cron-parser');
      const cron = CronExpressionParser.parse(expression, { tz: tz ?? 'UTC', currentDate: new Date(0) });
      cron.next(); // some impossible dates only fail when a slot is looked for
      return cron;
    } catch (error) {
      return invalidSchedule(`Invalid cron expression "${expression}": ${(error as Error).message}.`, error);
    }
  }
}

/** One step of cron-parser's iterator; it throws when no slot is left within its search limit. */
function step(move: () => { getTime(): number }): number | undefined {
  try {
    return move().getTime();
  } catch {
    return undefined;
  }
}

type CeleriacErrorLike = ReturnType<typeof invalidSchedule>;

function isTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
