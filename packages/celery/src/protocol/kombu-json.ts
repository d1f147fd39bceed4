/**
 * JSON as kombu writes it. kombu 5.3+ tags some values (`{"__type__": "datetime", "__value__": ...}`)
 * and 5.2 writes them as plain strings; both are read. Values are written the 5.2 way (a Date as its
 * ISO string, bytes as UTF-8 text), which every kombu 5 reads.
 */
import { SerializationError } from '@celeriac/core';

/** Parses kombu JSON, turning type tags into JavaScript values. */
export function parseKombuJson(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => untag(value));
}

/** Turns every tagged value of a parsed document into its JavaScript value, as {@link parseKombuJson} does. */
export function untagAll(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untagAll);
  if (typeof value !== 'object' || value === null) return value;
  return untag(Object.fromEntries(Object.entries(value).map(([key, item]) => [key, untagAll(item)])));
}

/** Turns one tagged value into its JavaScript value; other values pass unchanged. */
export function untag(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const tagged = value as { __type__?: unknown; __value__?: unknown };
  if (typeof tagged.__type__ !== 'string' || !('__value__' in tagged) || Object.keys(tagged).length !== 2) {
    return value;
  }
  const inner = tagged.__value__;
  switch (tagged.__type__) {
    case 'datetime':
    case 'date':
      return typeof inner === 'string' ? new Date(withZone(inner)) : value;
    case 'bytes':
      return typeof inner === 'string' ? Buffer.from(inner, 'utf8') : value;
    // No decimal or UUID type in JavaScript: their text keeps every digit.
    case 'decimal':
    case 'uuid':
    case 'time':
      return typeof inner === 'string' ? inner : value;
    default:
      return value;
  }
}

/**
 * Throws a SerializationError naming the first value of `value` that JSON cannot carry to Python
 * (a Map, a Set, a BigInt, a class instance, undefined in a list, a function): sent on, it would
 * arrive changed or not at all.
 */
export function assertKombuJson(value: unknown, label: string, path = ''): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number' && Number.isFinite(value)) return;
  if (value instanceof Date || value instanceof Uint8Array) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertKombuJson(item, label, `${path}[${index}]`));
    return;
  }
  if (typeof value === 'object' && isPlainObject(value)) {
    for (const [key, item] of Object.entries(value))
      if (item !== undefined) assertKombuJson(item, label, `${path}.${key}`);
    return;
  }
  const what = typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
  throw new SerializationError(
    `${label}${path ? ` at ${path}` : ''} is a ${what}, which the Celery protocol cannot carry: it sends JSON. ` +
      `Pass plain data (objects, arrays, strings, finite numbers, booleans, null, Dates).`,
  );
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Writes a value as kombu 5.2 would: Dates as ISO strings, Buffers as UTF-8 text. */
export function stringifyKombuJson(value: unknown): string {
  return JSON.stringify(value, function replace(this: Record<string, unknown>, key: string, current: unknown) {
    const original = this[key];
    if (Buffer.isBuffer(original)) return original.toString('utf8');
    if (original instanceof Uint8Array) return Buffer.from(original).toString('utf8');
    return current;
  });
}

/** Python writes naive UTC datetimes (`datetime.utcnow()`): read them as UTC, not local time. */
export function withZone(iso: string): string {
  return /(Z|[+-]\d\d:?\d\d)$/.test(iso) || !iso.includes('T') ? iso : `${iso}Z`;
}
