/**
 * The delay topology's routing, as pure functions. A delay of d ms is written in binary, one bit a
 * level. The routing key is those bits, highest level first, as topic words, then the ready queue's
 * name: `0.0.1.0.….1.celeriac.default`. Level k's exchange sends a message whose bit k is 1 to the
 * queue's level k queue (TTL 2^k ms) and one whose bit is 0 straight on to level k-1's exchange;
 * each level queue dead-letters into the next exchange down, keeping the routing key; below level 0
 * the delivery exchange routes by the queue name. Every message in one level queue has the same
 * TTL, so they expire in the order they came in and a short delay never waits behind a long one.
 */
import { DELAY_LEVELS } from './names';

/** The longest delay one pass through the levels holds (a longer one goes round again). */
export const MAX_DELAY = 2 ** DELAY_LEVELS - 1;

/** The routing key of a message delayed `delay` ms (at most {@link MAX_DELAY}) for `ready`. */
export function delayRoutingKey(delay: number, ready: string): string {
  const bits: string[] = [];
  for (let level = DELAY_LEVELS - 1; level >= 0; level -= 1) bits.push(bitOf(delay, level) ? '1' : '0');
  return `${bits.join('.')}.${ready}`;
}

/** The level whose exchange a message delayed `delay` ms enters at: its highest set bit. */
export function entryLevel(delay: number): number {
  return Math.floor(Math.log2(delay));
}

/** The pattern level `level`'s exchange binds the level queue of `ready` with (bit `level` set). */
export function levelQueuePattern(level: number, ready: string): string {
  return [...stars(DELAY_LEVELS - 1 - level), '1', ...stars(level), ready].join('.');
}

/** The pattern level `level`'s exchange binds the next exchange down with (bit `level` clear). */
export function passOnPattern(level: number): string {
  return [...stars(DELAY_LEVELS - 1 - level), '0', '#'].join('.');
}

/** The pattern the delivery exchange binds the ready queue `ready` with. */
export function deliveryPattern(ready: string): string {
  return [...stars(DELAY_LEVELS), ready].join('.');
}

function stars(count: number): string[] {
  return Array.from({ length: count }, () => '*');
}

function bitOf(value: number, level: number): boolean {
  return Math.floor(value / 2 ** level) % 2 === 1;
}

/** The levels a message delayed `delay` ms passes through: those of its set bits. */
export function setLevels(delay: number): number[] {
  const levels: number[] = [];
  for (let level = 0; level < DELAY_LEVELS; level += 1) if (bitOf(delay, level)) levels.push(level);
  return levels;
}
