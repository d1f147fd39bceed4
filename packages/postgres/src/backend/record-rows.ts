/**
 * A store call's entries as the rows and notices of one statement. Every record is encoded and
 * checked first, so that one that cannot be stored (a value that does not encode, a TTL out of
 * range) is refused alone, before anything is written, and no notice announces it.
 */
import { CeleriacError, MAX_RESULT_TTL_MS, type Codec, type StoreEntry } from '@celeriac/core';
import { isReadyState } from '@celeriac/core/internal';
import { NoticeBuilder } from './notices';

/** The columns of the rows to upsert, one array each (sent as `unnest` parameters). */
export interface RecordRows {
  readonly ids: string[];
  readonly states: string[];
  readonly finals: boolean[];
  readonly records: string[];
  readonly ttls: number[];
}

/** What one store call writes, announces and tells this process's own waiters. */
export interface EncodedStore {
  readonly rows: RecordRows;
  /** The notification payloads (see notices.ts). */
  readonly notices: string[];
  /** Every entry not refused, with its record's text, in order (for this process's listeners). */
  readonly stored: Array<[entry: StoreEntry, text: string]>;
  /** Why each refused task's record was not stored. */
  readonly refused: Map<string, Error>;
}

/**
 * Encodes `entries`. Within one call only the last record of a task is written (STARTED, then
 * SUCCESS in one batch), but every record addressed to a client is announced to it.
 */
export function encodeStore(entries: readonly StoreEntry[], codec: Codec, from: string): EncodedStore {
  const latest = new Map<string, StoreEntry>();
  for (const entry of entries) latest.set(entry.record.id, entry);
  const refused = new Map<string, Error>();
  const encoded: Array<[StoreEntry, string]> = [];
  for (const entry of entries) {
    const { id } = entry.record;
    const last = latest.get(id) === entry;
    if (refused.has(id)) continue;
    try {
      const label = () => `the record of task ${id}`;
      const text =
        entry.resultJson === undefined
          ? codec.stringify(entry.record, label)
          : codec.stringifyWithJson(
              entry.record as unknown as Record<string, unknown>,
              'result',
              entry.resultJson,
              label,
            );
      if (last) checkTtl(entry);
      encoded.push([entry, text]);
    } catch (error) {
      refused.set(id, error as Error);
    }
  }
  const rows: RecordRows = { ids: [], states: [], finals: [], records: [], ttls: [] };
  const notices = new NoticeBuilder(from);
  const stored = encoded.filter(([entry]) => !refused.has(entry.record.id));
  for (const [entry, text] of stored) {
    const { id, state } = entry.record;
    const ready = isReadyState(state);
    if (entry.replyTo !== undefined) notices.addChange(entry.replyTo, id, text, ready);
    if (latest.get(id) !== entry) continue;
    rows.ids.push(id);
    rows.states.push(state);
    rows.finals.push(ready);
    rows.records.push(text);
    rows.ttls.push(Math.round(entry.ttl));
    if (ready) notices.addReady(id);
  }
  return { rows, notices: notices.finish(), stored, refused };
}

/** Refuses a TTL no row can keep, so that the record fails alone. */
function checkTtl(entry: StoreEntry): void {
  const { ttl } = entry;
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0 || ttl > MAX_RESULT_TTL_MS) {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The record of task ${entry.record.id} has a TTL of ${String(ttl)} ms; PostgreSQL keeps records for 0 to ` +
        `${MAX_RESULT_TTL_MS} ms. Set the task's resultTtl within that range.`,
    );
  }
}
