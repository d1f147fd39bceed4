/**
 * Values shown on the page (task arguments, results) as JSON text of bounded size. They are user
 * data: the page shows them as text, never as markup.
 */

/** Longest preview sent to the page. */
const PREVIEW_LIMIT = 10_000;

/** `value` as indented JSON (Maps, Sets, bigints and Dates made readable), cut to 10,000 characters. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text =
      JSON.stringify(
        value,
        (_key, item: unknown) => {
          if (typeof item === 'bigint') return `${item}n`;
          if (item instanceof Map) return Object.fromEntries(item as Map<unknown, unknown>) as unknown;
          if (item instanceof Set) return [...(item as Set<unknown>)];
          if (item instanceof Error) return { name: item.name, message: item.message };
          return item;
        },
        2,
      ) ?? String(value);
  } catch (error) {
    text = `(not shown: ${(error as Error).message})`;
  }
  return text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT)}… (cut)` : text;
}

/**
 * An argument or result payload of an event (the codec's JSON, possibly cut) made readable: the
 * plain JSON part indented when it parses, the text as it is when it was cut.
 */
export function payloadText(text: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && 'json' in parsed) return preview(parsed.json);
    return preview(parsed);
  } catch {
    return text;
  }
}
