/** Which of an entry's due slots to fire, by its `catchUp` policy. */
import type { CatchUpPolicy } from '@celeriac/core';
import type { SlotRange } from './schedules/schedule';

/** The slots to fire, and how many due ones are left unfired. */
export interface CatchUpDecision {
  readonly fire: readonly number[];
  readonly skipped: number | 'many';
}

/**
 * Decides over the due slots of one entry (usually just one, on time). `grace`: how late the
 * latest slot may be and still fire under `'skip'` (the lease, so a hand-over does not lose it).
 */
export function decideCatchUp(policy: CatchUpPolicy, range: SlotRange, now: number, grace: number): CatchUpDecision {
  const { slots, dropped } = range;
  const latest = slots[slots.length - 1];
  if (latest === undefined) return { fire: [], skipped: 0 };
  const plus = (count: number): number | 'many' => (dropped === 'many' ? 'many' : dropped + count);
  switch (policy) {
    case 'all':
      return { fire: slots, skipped: dropped };
    case 'once':
      return { fire: [latest], skipped: plus(slots.length - 1) };
    case 'skip':
      return now - latest <= grace
        ? { fire: [latest], skipped: plus(slots.length - 1) }
        : { fire: [], skipped: plus(slots.length) };
  }
}
