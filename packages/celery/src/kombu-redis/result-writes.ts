/**
 * The writes that store a batch of Celeriac records as Celery results. A final record (SUCCESS,
 * FAILURE, REVOKED) is a SET and a PUBLISH in one MULTI with the Celery workflow steps it sends (a
 * chain's next step, callbacks, errbacks), as a Celery worker writes them; a final record always
 * replaces another. A record of a state in between goes through store-results-n.lua, which never
 * lets it replace a final record. A record that cannot be stored (a value the codec refuses, a
 * result that must travel on in a Celery message but is not JSON) is refused alone.
 */
import type { Codec, StoreEntry } from '@celeriac/core';
import { isReadyState } from '@celeriac/core/internal';
import { noteRefusals } from '@celeriac/redis/internal';
import type { Redis } from 'ioredis';
import { assertKombuJson } from '../protocol/kombu-json';
import { toCeleryMeta } from '../protocol/result';
import type { CeleryWorkflow, FollowUp } from '../protocol/workflow';
import { celeryScripts } from './celery-scripts';
import type { EndedPart } from './chord';
import type { CeleryKeys } from './keys';

/** Most records per script call, so one call never blocks Redis for long. */
const STORE_CHUNK = 1_000;

/** What the writes need: the codec of Celeriac's fields, kombu's keys, and the workflow that sends steps on. */
export interface ResultWriteContext {
  readonly codec: Codec;
  readonly keys: CeleryKeys;
  readonly workflow: CeleryWorkflow;
  /** True when another broker sends the follow-ups (see `ResultWrites.followUps`): none is pushed here. */
  readonly sendsFollowUps?: boolean;
}

/** The writes of a batch, sent: what they settle on, and what is left to do after them. */
export interface ResultWrites {
  /** Settle when every record was written (or refused); reject only when the connection fails. */
  readonly sent: Promise<unknown>;
  /** The members of Python chords that ended, to count once the records are stored. */
  readonly chordParts: EndedPart[];
  /** The records refused, by task id (filled in as the writes settle). */
  readonly refused: Map<string, Error>;
  /** With `sendsFollowUps`: the follow-ups of the final records, to send once they are stored. */
  readonly followUps: FollowUp[];
}

/** One record in between, to write through the guarding script. */
interface GuardedSet {
  readonly id: string;
  readonly key: string;
  readonly text: string;
  readonly ttl: number;
}

/**
 * Sends the writes of `entries` on `client`, in their order: the records in between first (each
 * call's records in order), then the MULTI of the final ones. Which goes first does not decide what
 * is stored, as a record in between never replaces a final one; it keeps the notices in order.
 */
export function writeResults(client: Redis, entries: readonly StoreEntry[], context: ResultWriteContext): ResultWrites {
  const { codec, keys, workflow } = context;
  const refused = new Map<string, Error>();
  const toSend: FollowUp[] = [];
  const chordParts: EndedPart[] = [];
  const guarded: GuardedSet[] = [];
  const multi = client.multi();
  /** The task of each SET in the MULTI, by the SET's place in it. */
  const finals = new Map<number, string>();
  let queued = 0;
  for (const { record, ttl, resultJson } of entries) {
    const value = () => (resultJson === undefined ? record.result : (JSON.parse(resultJson) as unknown));
    let text: string;
    let part: EndedPart['part'] | undefined;
    let followUps: ReturnType<CeleryWorkflow['followUps']>;
    try {
      text = toCeleryMeta(record, codec, resultJson);
      part = workflow.chordPart(record);
      // A chord member's result joins Celery's chord keys, which Python reads: JSON only, as arguments.
      if (part && record.state === 'SUCCESS') assertKombuJson(value(), `the result of chord member ${record.id}`);
      followUps = workflow.followUps(record, value);
    } catch (error) {
      refused.set(record.id, error as Error);
      continue;
    }
    const key = keys.result(record.id);
    const expiry = Math.max(1, Math.round(ttl));
    if (part) chordParts.push({ part, value, ttl });
    if (!isReadyState(record.state)) {
      guarded.push({ id: record.id, key, text, ttl: expiry });
      continue;
    }
    finals.set(queued, record.id);
    multi.set(key, text, 'PX', expiry).publish(key, text);
    queued += 2;
    if (context.sendsFollowUps) {
      toSend.push(...followUps);
      continue;
    }
    for (const next of followUps) multi.lpush(keys.queueFor(next.queue, next.priority), next.payload);
    queued += followUps.length;
  }
  const calls = storeGuarded(client, guarded, refused);
  calls.push(
    multi.exec().then((replies) => {
      // A SET Redis refuses (a TTL past its limits) fails alone in a MULTI: the others went through.
      for (const [at, id] of finals) {
        const error = replies?.[at]?.[0];
        if (error) refused.set(id, error);
      }
    }),
  );
  return { sent: Promise.all(calls), chordParts, refused, followUps: toSend };
}

/** The script calls that store the records in between; the ones Redis refuses go to `refused`. */
function storeGuarded(
  client: Redis,
  sets: readonly GuardedSet[],
  refused: Map<string, Error>,
): Array<Promise<unknown>> {
  const calls: Array<Promise<unknown>> = [];
  for (let start = 0; start < sets.length; start += STORE_CHUNK) {
    const chunk = sets.slice(start, start + STORE_CHUNK);
    const call = celeryScripts.run<Array<number | string>>(
      client,
      'storeResults',
      chunk.map(({ key }) => key),
      chunk.flatMap(({ text, ttl }) => [text, ttl]),
    );
    calls.push(call.then((failures) => noteRefusals(failures, chunk, refused)));
  }
  return calls;
}
