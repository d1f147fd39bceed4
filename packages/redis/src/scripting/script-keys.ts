/**
 * The keys each Lua script takes, by name and in KEYS order: the one table both sides follow. The
 * callers build their key lists from it ({@link scriptKeys}); each script declares its keys as locals
 * in this order (`local ready = KEYS[1]`), and the loader checks the declarations, the count in the
 * file name and each call's key count against it (see script-check.ts and script-library.ts).
 */
import { FAILED_KEYS, QUEUE_KEYS } from '../keys';

/** A script that takes a fixed head of named keys, then any number more (`<command>-n.lua`). */
export interface VariadicKeys {
  /** The keys before the variable part, in KEYS order (declared as locals like fixed keys). */
  readonly head: readonly string[];
  /** What the keys after the head are, for messages (the script indexes them itself). */
  readonly rest: string;
}

/** Every script's keys: a list of names (`<command>-<count>.lua`) or a {@link VariadicKeys}. */
export const SCRIPT_KEYS = {
  publish: QUEUE_KEYS,
  reserve: QUEUE_KEYS,
  ack: QUEUE_KEYS,
  ackFailed: [...QUEUE_KEYS, ...FAILED_KEYS],
  keepFailed: [...QUEUE_KEYS, ...FAILED_KEYS],
  discardFailed: FAILED_KEYS,
  requeue: QUEUE_KEYS,
  requeueLost: QUEUE_KEYS,
  deadLetter: QUEUE_KEYS,
  extendLeases: QUEUE_KEYS,
  recover: QUEUE_KEYS,
  revoke: QUEUE_KEYS,
  revokeNote: ['revoked', 'revokedInfo'],
  purge: QUEUE_KEYS,
  resume: QUEUE_KEYS,
  requeueDead: QUEUE_KEYS,
  discardDead: QUEUE_KEYS,
  groupDone: ['group'],
  storeRecords: { head: [], rest: 'records' },
  beatLease: ['lease'],
  beatRelease: ['lease'],
  beatSync: ['lease', 'slots', 'fingerprints', 'claimed'],
  beatClaim: ['lease', 'slots', 'claimed'],
  beatSettle: ['slots', 'claimed'],
  beatPut: ['entries'],
  beatRemove: ['entries', 'slots', 'fingerprints', 'claimed'],
} as const satisfies Record<string, readonly string[] | VariadicKeys>;

/** The scripts this package ships, one file each under `scripts/`. */
export type ScriptName = keyof typeof SCRIPT_KEYS;

/** The scripts that take a fixed list of keys. */
export type FixedKeyScript = {
  [Name in ScriptName]: (typeof SCRIPT_KEYS)[Name] extends readonly string[] ? Name : never;
}[ScriptName];

/** The scripts that take exactly the keys of one queue. */
export type QueueScript = {
  [Name in ScriptName]: (typeof SCRIPT_KEYS)[Name] extends typeof QUEUE_KEYS ? Name : never;
}[ScriptName];

/** The names of the keys a fixed-key script takes. */
export type ScriptKeyName<Name extends FixedKeyScript> = (typeof SCRIPT_KEYS)[Name][number];

/** The key list of a call of `name`, in its KEYS order, from keys given by name. */
export function scriptKeys<Name extends FixedKeyScript>(
  name: Name,
  keys: { readonly [Key in ScriptKeyName<Name>]: string },
): string[] {
  const names: readonly ScriptKeyName<Name>[] = SCRIPT_KEYS[name];
  return names.map((key) => keys[key]);
}

/** True when `keys` declares a variable number of keys. */
export function isVariadic(keys: readonly string[] | VariadicKeys): keys is VariadicKeys {
  return !Array.isArray(keys);
}
