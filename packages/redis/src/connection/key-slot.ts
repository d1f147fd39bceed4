/**
 * The Redis Cluster hash slot of a key (or shard channel): CRC16 (XMODEM) of the key, or of its hash
 * tag (the text between the first `{` and the next `}`, when not empty), modulo 16384. Used to split
 * multi-key calls by slot, so that each goes to one node.
 */

/** The number of hash slots in a Redis Cluster. */
export const SLOT_COUNT = 16_384;

const encoder = new TextEncoder();

/** The hash slot of `key`. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(encoder.encode(key)) % SLOT_COUNT;
}

/** CRC16 with polynomial 0x1021 and initial value 0, as Redis Cluster computes it. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** Splits `items` into groups whose keys share a slot, keeping their order within each group. */
export function groupBySlot<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = keySlot(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return [...groups.values()];
}
