/**
 * Values shown on the page (task arguments, results) as the user passed them (a Map as a Map, a
 * BigInt as `5n`, a Date as its time), never in the codec's wire form, as text of bounded size.
 * They are user data: the page shows them as text, never as markup.
 */
import { inspect } from 'node:util';
import type { Codec } from '@celeriac/core';
import { isCutPayload, readPayload } from '@celeriac/core/internal';

/** Longest preview sent to the page. */
const PREVIEW_LIMIT = 10_000;

/** `value` as JavaScript-like text, indented over lines when long, cut to 10,000 characters. */
export function preview(value: unknown): string {
  const text = inspect(value, { depth: 8, breakLength: 80, maxArrayLength: 200, maxStringLength: PREVIEW_LIMIT });
  return text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT)}… (cut)` : text;
}

/**
 * An argument or result payload of an event (the codec's text, possibly cut to the app's payload
 * limit) made readable: the decoded value, or the start of the text as stored when it was cut.
 */
export function payloadText(codec: Codec, text: string): string {
  const value = readPayload(codec, text);
  return isCutPayload(value) ? `${value.cut} (cut)` : preview(value);
}
