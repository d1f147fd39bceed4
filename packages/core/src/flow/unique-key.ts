/**
 * The default key of a unique task: its arguments encoded canonically (object keys sorted, so
 * `{ a, b }` and `{ b, a }` are one key) and hashed, so the key stays short whatever the arguments.
 */
import { createHash } from 'node:crypto';
import { CeleriacError } from '../errors';

/**
 * A SHA-256 (hex) of the canonical encoding of `args`; throws `CELERIAC_INVALID_OPTION` for values
 * it cannot encode.
 */
export function argumentsKey(task: string, args: readonly unknown[]): string {
  return createHash('sha256').update(canonical(args, task)).digest('hex');
}

function canonical(value: unknown, task: string): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : `{"$number":"${value}"}`;
  if (value === undefined) return '{"$undefined":true}';
  if (typeof value === 'bigint') return `{"$bigint":"${value}"}`;
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, task)).join(',')}]`;
  if (value instanceof Date) return `{"$date":${JSON.stringify(value.toISOString())}}`;
  if (value instanceof Map)
    return `{"$map":${canonical(
      [...value].sort(([a], [b]) => compare(canonical(a, task), canonical(b, task))),
      task,
    )}}`;
  if (value instanceof Set)
    return `{"$set":[${[...value]
      .map((item) => canonical(item, task))
      .sort(compare)
      .join(',')}]}`;
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key], task)}`);
    return `{${entries.join(',')}}`;
  }
  throw new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `The arguments of ${task} hold a value unique: true cannot encode ` +
      `(${Object.prototype.toString.call(value)}); give unique a key function.`,
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
