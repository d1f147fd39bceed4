/**
 * Storing the task records a worker settles together. One final record is a plain SET; several are
 * one script call per chunk (store-records-n.lua), cheaper for the client than a SET each. On a
 * cluster a script call takes the records of one slot, and each task's record has a key (and so a
 * slot) of its own: records are grouped by slot, mostly one SET each. (Redis 7's
 * `allow-cross-slot-keys` script flag does not lift this: it covers keys a script does not declare;
 * declared keys must still share a slot.)
 */
import { ReplyError } from 'ioredis';
import { groupBySlot } from '../connection/key-slot';
import { isCluster, type RedisClient } from '../connection/redis-client';
import { runScript } from '../scripting/scripts';

/** Most records per script call, so one call never blocks Redis for long. */
const STORE_CHUNK = 1_000;

/** ioredis re-exports redis-errors' ReplyError untyped. */
const TypedReplyError = ReplyError as new (message: string) => Error;

/** One record to write: its task id, key, text and TTL (ms). */
export interface RecordSet {
  id: string;
  key: string;
  text: string;
  ttl: number;
  /** A final state's record; one of a state in between never replaces a final one. */
  final: boolean;
}

/**
 * The calls that store `sets`, all sent at once (to join the caller's corked write). Records Redis
 * refuses are added to `refused`; only a failure of the connection rejects.
 */
export function storeCalls(
  client: RedisClient,
  sets: readonly RecordSet[],
  refused: Map<string, Error>,
): Array<Promise<unknown>> {
  const groups = isCluster(client) && sets.length > 1 ? groupBySlot(sets, (set) => set.key) : [sets];
  if (groups.length > 1) return groups.flatMap((group) => storeCalls(client, group, refused));
  // A final record alone is a plain SET; one in between goes through the script, which keeps a
  // final record from being replaced by it.
  if (sets.length === 1 && (sets[0] as RecordSet).final) {
    const { id, key, text, ttl } = sets[0] as RecordSet;
    return [
      client.set(key, text, 'PX', ttl).catch((error: unknown) => {
        if (!(error instanceof ReplyError)) throw error;
        refused.set(id, error as Error);
      }),
    ];
  }
  const calls: Array<Promise<unknown>> = [];
  for (let start = 0; start < sets.length; start += STORE_CHUNK) {
    const chunk = sets.slice(start, start + STORE_CHUNK);
    const call = runScript<Array<number | string>>(
      client,
      'storeRecords',
      chunk.map(({ key }) => key),
      chunk.flatMap(({ text, ttl, final }) => [text, ttl, final ? 1 : 0]),
    );
    calls.push(call.then((failures) => noteRefusals(failures, chunk, refused)));
  }
  return calls;
}

/**
 * Adds the records a store script refused to `refused`, by task id: its reply is `{ index, error, ... }`,
 * each index 1-based into the records it was given (`chunk`).
 */
export function noteRefusals(
  failures: ReadonlyArray<number | string>,
  chunk: ReadonlyArray<{ readonly id: string }>,
  refused: Map<string, Error>,
): void {
  for (let i = 0; i < failures.length; i += 2) {
    const set = chunk[Number(failures[i]) - 1];
    if (set) refused.set(set.id, new TypedReplyError(String(failures[i + 1])));
  }
}
