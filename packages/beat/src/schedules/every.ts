/** `every('30s')`: fixed intervals, on slots aligned to an anchor (the epoch unless given). */
import { type Duration } from '@celeriac/core';
import { toMilliseconds } from '@celeriac/core/internal';
import { invalidSchedule, type Schedule, type SlotRange } from './schedule';

/** The shortest interval beat fires at: every entry costs a send per slot on every tick. */
const MIN_INTERVAL_MS = 100;

/** Options of {@link every}. */
export interface EveryOptions {
  /**
   * A time the slots are aligned to: slots fall on `anchor + k × interval`.
   * @defaultValue the Unix epoch, so `every('30s')` fires at :00 and :30 of every minute (UTC)
   */
  anchor?: Date | number;
}

/**
 * Fires every `interval` (milliseconds or a string like `'30s'`, `'5m'`). Slots are aligned to the
 * epoch (or `anchor`), so every scheduler process computes the same slots: `every('1h')` fires at
 * the start of every UTC hour. A bad interval is reported by `app.schedule()`, naming the entry.
 */
export function every(interval: Duration, options: EveryOptions = {}): Schedule {
  let ms = Number.NaN;
  let problem: string | undefined;
  try {
    ms = toMilliseconds(interval, 'interval');
  } catch (error) {
    problem = (error as Error).message;
  }
  const anchor = options.anchor === undefined ? 0 : new Date(options.anchor).getTime();
  if (problem === undefined && !(Number.isInteger(ms) && ms >= MIN_INTERVAL_MS))
    problem =
      `every() needs an interval of at least ${MIN_INTERVAL_MS} ms in whole milliseconds, got ` +
      `${JSON.stringify(interval)}: a periodic task that fires more often belongs in a worker loop, not in beat.`;
  if (problem === undefined && !Number.isFinite(anchor))
    problem = `every() got an invalid anchor: ${String(options.anchor)}.`;
  return new EverySchedule(ms, anchor, problem);
}

class EverySchedule implements Schedule {
  readonly spec;

  constructor(
    private readonly ms: number,
    private readonly anchor: number,
    private readonly problem: string | undefined,
  ) {
    this.spec = anchor === 0 ? { kind: 'every' as const, every: ms } : { kind: 'every' as const, every: ms, anchor };
  }

  validate(): void {
    if (this.problem !== undefined) throw invalidSchedule(this.problem);
  }

  next(after: number): number {
    this.validate();
    return this.slot(this.index(after) + 1);
  }

  slotsBetween(after: number, until: number, limit: number): SlotRange {
    this.validate();
    const first = this.index(after) + 1;
    const last = this.index(until);
    const count = Math.max(0, last - first + 1);
    const taken = Math.min(count, limit);
    const slots: number[] = [];
    for (let k = last - taken + 1; k <= last; k += 1) slots.push(this.slot(k));
    return { slots, dropped: count - taken };
  }

  toString(): string {
    const base = Number.isFinite(this.ms) ? `every ${formatDuration(this.ms)}` : 'every (invalid interval)';
    return this.anchor === 0 ? base : `${base} from ${new Date(this.anchor).toISOString()}`;
  }

  /** The index of the latest slot at or before `time`. */
  private index(time: number): number {
    return Math.floor((time - this.anchor) / this.ms);
  }

  private slot(index: number): number {
    return this.anchor + index * this.ms;
  }
}

const UNITS: ReadonlyArray<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** `30000` → `'30s'`, `5400000` → `'90m'`: the largest unit that divides the interval. */
function formatDuration(ms: number): string {
  const unit = UNITS.find(([, size]) => ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}
