/**
 * Values shown to people and scripts (the CLI's lines and `--json`, the dashboard) as the user
 * passed them, never in the codec's wire form (`{"json":…,"meta":…}`, a Map as its entry list, a
 * BigInt as a string).
 */
import { inspect } from 'node:util';
import type { Codec } from './codec';

/** A payload cut to its size limit could not be decoded: what is shown instead of the value. */
export interface CutPayload {
  /** The start of the encoded text, as it was stored. */
  readonly cut: string;
}

/**
 * Decodes an event payload (the codec's text, possibly cut to the app's `events.payloadLimit`):
 * the value, or {@link CutPayload} when the text was cut and does not decode.
 */
export function readPayload(codec: Codec, text: string): unknown {
  try {
    return codec.parse(text);
  } catch {
    return { cut: text } satisfies CutPayload;
  }
}

/** True for what {@link readPayload} returns for a payload that was cut. */
export function isCutPayload(value: unknown): value is CutPayload {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && 'cut' in value;
}

/**
 * `value` as one line of JavaScript-like text: `[ 2, 3 ]`, `Map(1) { 'k' => 1n }`, a Date as its
 * ISO time; `max` characters at most (cut with `…`).
 */
export function showValue(value: unknown, max = Infinity): string {
  const text = isCutPayload(value)
    ? `${value.cut} (cut)`
    : // Only an Error's stack spans lines (strings show their newlines as \n): keep the value on one line.
      inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 100, maxStringLength: 10_000 }).replace(
        /\n\s*/g,
        ' ',
      );
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

/**
 * `value` as plain JSON data for `--json` and the dashboard: a Map with string keys becomes an
 * object (with other keys, a list of `[key, value]` pairs), a Set a list, a BigInt a number when it
 * is a safe integer and its digits otherwise, a Date its ISO time, an Error its name and message,
 * `undefined` null in lists (left out in objects, as JSON does).
 */
export function plainJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
      // JSON.stringify calls toJSON first: a Date arrives as text here, which is what is wanted.
      const raw = (this as Record<string, unknown>)[key];
      if (typeof raw === 'bigint') return Number.isSafeInteger(Number(raw)) ? Number(raw) : raw.toString();
      if (raw instanceof Map) {
        const entries = [...(raw as Map<unknown, unknown>)];
        return entries.every(([k]) => typeof k === 'string') ? (Object.fromEntries(entries) as unknown) : entries;
      }
      if (raw instanceof Set) return [...(raw as Set<unknown>)];
      if (raw instanceof Error) return { name: raw.name, message: raw.message };
      return item;
    }) ?? 'null',
  ) as unknown;
}
