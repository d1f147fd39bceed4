/** Arguments and results in events: only when the app opts in, encoded and cut to a size. */
import type { Codec } from '../codec';

/** The encoded value, cut to `limit` characters (with a trailing `…` when cut); undefined if it does not encode. */
export function eventPayload(codec: Codec, value: unknown, limit: number): string | undefined {
  let text: string;
  try {
    text = codec.stringify(value, () => 'an event payload');
  } catch {
    return undefined;
  }
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
