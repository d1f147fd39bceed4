/**
 * `celeriac inspect stats` for people: epoch times as dates with how long ago, durations as 12 s /
 * 3 min / 2.0 h, bytes as MiB (as `celeriac events` shows rss), lists comma-separated. `--json`
 * keeps the raw numbers.
 */
import { ago } from './ops-app';

/** Fields that hold an epoch time in ms, a duration in ms, or a size in bytes. */
const TIMES = new Set(['started', 'heartbeat']);
const DURATIONS = new Set(['uptime']);
const SIZES = new Set(['rss']);

/** One `key: value` line per field of a worker's stats. */
export function statsLines(stats: Record<string, unknown>, now: number = Date.now()): string {
  return Object.entries(stats)
    .map(([key, value]) => `${key}: ${readable(key, value, now)}`)
    .join('\n');
}

function readable(key: string, value: unknown, now: number): string {
  if (typeof value === 'number') {
    if (TIMES.has(key)) return `${new Date(value).toISOString()} (${ago(now - value)} ago)`;
    if (DURATIONS.has(key)) return ago(value);
    if (SIZES.has(key)) return mebibytes(value);
    return String(value);
  }
  if (typeof value === 'string') return value;
  if (key === 'autoscale' && isBounds(value)) return `min ${value.min}, max ${value.max}`;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(', ') || '(none)';
  return JSON.stringify(value);
}

function isBounds(value: unknown): value is { min: number; max: number } {
  const bounds = value as { min?: unknown; max?: unknown } | null;
  return typeof bounds?.min === 'number' && typeof bounds.max === 'number';
}

/** Bytes as MiB (2^20 bytes), with one decimal. */
function mebibytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}
