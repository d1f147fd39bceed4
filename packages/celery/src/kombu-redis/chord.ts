/**
 * Celery's `on_chord_part_return` on a Celeriac worker: when a member of a chord's header that Python
 * sent ends, its outcome joins the group's `.j` sorted set (scored by the member's place), and the
 * worker whose member completes the count (`.s`, plus `.t`) sends the body with the results in
 * header order, as a Python worker would, then deletes the chord keys. A failed member fails the body
 * with Celery's `ChordError` instead.
 */
import type { Redis } from 'ioredis';
import { parseKombuJson, stringifyKombuJson } from '../protocol/kombu-json';
import type { CeleryException } from '../protocol/celery-exception';
import { resultOf } from '../protocol/result';
import type { ChordPart, CeleryWorkflow, FollowUpSender } from '../protocol/workflow';
import type { CeleryKeys } from './keys';

/** A chord part to count: the member, its result and the TTL of the chord keys (ms). */
export interface EndedPart {
  readonly part: ChordPart;
  readonly value: () => unknown;
  readonly ttl: number;
}

const FAILED = new Set(['FAILURE', 'REVOKED']);

/**
 * Counts each ended member of a Python chord, and sends the body of a chord whose header is complete
 * (in the MULTI that deletes the chord keys, or first through `send` for another broker).
 */
export async function countChordParts(
  client: Redis,
  keys: CeleryKeys,
  workflow: CeleryWorkflow,
  ended: readonly EndedPart[],
  send?: FollowUpSender,
): Promise<void> {
  for (const { part, value, ttl } of ended) {
    const chord = keys.chord(part.groupId);
    const { record } = part;
    const result = record.state === 'SUCCESS' ? value() : resultOf(record);
    const expiry = Math.max(1, Math.round(ttl));
    const replies = await client
      .multi()
      .zadd(chord.results, part.index ?? '+inf', stringifyKombuJson([1, record.id, record.state, result]))
      .zcard(chord.results)
      .get(chord.extra)
      .get(chord.size)
      .pexpire(chord.results, expiry)
      .pexpire(chord.extra, expiry)
      .pexpire(chord.size, expiry)
      .exec();
    const [count, extra, size] = (replies ?? []).slice(1, 4).map(([, reply]) => reply) as [number, string, string];
    // Python writes the size just before it sends the last member: until then, no member completes it.
    if (size === null || count !== Number(size) + Number(extra ?? 0)) continue;
    const members = (await client.zrange(chord.results, 0, -1)).map((text) => parseKombuJson(text) as unknown[]);
    const multi = client.multi();
    const failed = members.find((member) => FAILED.has(member[2] as string));
    if (failed) {
      const taskId = part.body.options?.task_id;
      const id = typeof taskId === 'string' ? taskId : '';
      const text = chordError(id, `Dependency ${String(failed[1])} raised ${exceptionText(failed[3])}`);
      if (id !== '') multi.set(keys.result(id), text, 'PX', expiry).publish(keys.result(id), text);
    } else {
      const body = workflow.chordBody(
        part,
        members.map((member) => member[3]),
      );
      if (send) await send([body]);
      else multi.lpush(keys.queueFor(body.queue, body.priority), body.payload);
    }
    await multi.del(chord.results, chord.extra, chord.size).exec();
  }
}

/** The FAILURE meta of a chord body whose header failed, as Celery's `ChordError`. */
function chordError(id: string, message: string): string {
  return stringifyKombuJson({
    status: 'FAILURE',
    result: { exc_type: 'ChordError', exc_message: [message], exc_module: 'celery.exceptions' },
    traceback: null,
    children: [],
    date_done: new Date().toISOString().replace(/Z$/, ''),
    task_id: id,
  });
}

/** An exception as Python shows it (`TypeError('no')`), or its JSON when it is not one. */
function exceptionText(result: unknown): string {
  const exception = result as Partial<CeleryException> | null;
  if (typeof exception?.exc_type !== 'string') return JSON.stringify(result);
  const parts: unknown[] = Array.isArray(exception.exc_message) ? exception.exc_message : [exception.exc_message];
  return `${exception.exc_type}(${parts.map((part) => JSON.stringify(part)).join(', ')})`;
}
