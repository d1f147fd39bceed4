/**
 * A ResultBackend that speaks Celery's Redis result backend: each record is the JSON string
 * `celery-task-meta-<id>` (with its TTL), and each change is published on a channel of the same
 * name, as Celery does, so Python's `AsyncResult.get()` and Celeriac's `await result` both wait by
 * pub/sub, without polling. A SUCCESS also sends the next step of a Celery chain (see
 * {@link CeleryWorkflow}), in the same write. Group counting for Celeriac's own chords and the event
 * log go through an inner {@link RedisBackend} under the app's prefix; events are also sent as Celery
 * events (see {@link CeleryEventLog}).
 */
import {
  RecordsRefusedError,
  type BackendSettings,
  type CeleriacEvent,
  type ChangeSubscription,
  type Codec,
  type GroupProgress,
  type ResultBackend,
  type BackendCapabilities,
  type StoreEntry,
  type TaskRecord,
  type WaitOptions,
} from '@celeriac/core';
import { closedWhileWaiting, isReadyState } from '@celeriac/core/internal';
import type { Redis } from 'ioredis';
import type { RedisConnection } from '../connection';
import { RedisBackend } from '../redis-backend';
import { singleNode } from '../redis-client';
import { unavailable } from '../unavailable';
import { countChordParts, type EndedPart } from './celery-chord';
import { CeleryEventLog } from './celery-event-log';
import { CELERY_BACKEND_CAPABILITIES } from './celery-capabilities';
import { resultKey } from './celery-keys';
import { fromCeleryMeta, toCeleryMeta } from './celery-result';
import type { CeleryWorkflow } from './celery-workflow';

/** A ResultBackend in Celery's Redis result format. */
export class CeleryBackend implements ResultBackend {
  readonly capabilities: BackendCapabilities = CELERY_BACKEND_CAPABILITIES;
  private readonly inner: RedisBackend;
  private readonly client: Redis;
  /** Celeriac's event log, each event also sent on Celery's `celeryev` exchange. */
  readonly events: CeleryEventLog;
  private closed = false;
  /** Ends every wait when the backend closes. */
  private readonly closing = new AbortController();

  constructor(
    private readonly connection: RedisConnection,
    settings: BackendSettings,
    codec: Codec,
    private readonly workflow: CeleryWorkflow,
  ) {
    this.inner = new RedisBackend(connection, settings, codec);
    this.client = singleNode(connection.client, "protocol: 'celery'");
    this.events = new CeleryEventLog(this.inner.events, this.client, workflow.keys.keyPrefix);
  }

  async store(entries: readonly StoreEntry[], events: readonly CeleriacEvent[] = []): Promise<void> {
    // Events first, on the same connection: whoever a record below wakes finds them sent already.
    const sendingEvents = Promise.all(this.events.add(events));
    const refused = new Map<string, Error>();
    const multi = this.client.multi();
    const chordParts: EndedPart[] = [];
    for (const entry of entries) {
      let text: string;
      try {
        text = toCeleryMeta(entry.record, entry.resultJson);
      } catch (error) {
        refused.set(entry.record.id, error as Error);
        continue;
      }
      const key = resultKey(entry.record.id);
      multi.set(key, text, 'PX', Math.max(1, Math.round(entry.ttl))).publish(key, text);
      const { record, resultJson } = entry;
      const value = () => (resultJson === undefined ? record.result : (JSON.parse(resultJson) as unknown));
      const part = this.workflow.chordPart(record);
      if (part) chordParts.push({ part, value, ttl: entry.ttl });
      for (const next of this.workflow.followUps(record, value)) multi.lpush(next.list, next.payload);
    }
    await Promise.all([sendingEvents, multi.exec()]).catch((error: unknown) => {
      throw unavailable(error, 'store Celery task results', this.connection);
    });
    if (chordParts.length > 0) {
      await countChordParts(this.client, this.workflow, chordParts).catch((error: unknown) => {
        throw unavailable(error, 'count the members of a Celery chord', this.connection);
      });
    }
    if (refused.size > 0) throw new RecordsRefusedError(refused);
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const text = await this.client.get(resultKey(id)).catch((error: unknown) => {
      throw unavailable(error, `read the result of task ${id}`, this.connection);
    });
    return text === null ? undefined : fromCeleryMeta(id, text);
  }

  async getMany(ids: readonly string[]): Promise<Array<TaskRecord | undefined>> {
    if (ids.length === 0) return [];
    const texts = await this.client.mget(...ids.map(resultKey));
    return texts.map((text, index) => (text === null ? undefined : fromCeleryMeta(ids[index] as string, text)));
  }

  /** Subscribes to the task's channel first, then reads the key: a change in between is not missed. */
  waitFor(id: string, signal?: AbortSignal, options: WaitOptions = {}): Promise<TaskRecord> {
    return new Promise<TaskRecord>((resolve, reject) => {
      let settled = false;
      const stops: Array<() => void> = [];
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        for (const stop of stops) stop();
        outcome();
      };
      const consider = (record: TaskRecord | undefined) => {
        if (record && isReadyState(record.state)) finish(() => resolve(record));
      };
      const fail = (error: unknown) => finish(() => reject(error));
      const onAbort = () => fail(signal?.reason);
      const onClose = () => fail(closedWhileWaiting());
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.closing.signal.addEventListener('abort', onClose, { once: true });
      stops.push(() => signal?.removeEventListener('abort', onAbort));
      stops.push(() => this.closing.signal.removeEventListener('abort', onClose));
      options.until?.then(undefined, fail);
      const subscription = this.onChange(id, consider);
      stops.push(subscription);
      subscription.ready.then(() => this.get(id).then(consider), fail);
      // Notices published while the subscriber was reconnecting are lost: read the key again.
      stops.push(this.connection.subscriber.onReconnect(() => void this.get(id).then(consider, fail)));
    });
  }

  onChange(id: string, listener: (record: TaskRecord) => void): ChangeSubscription {
    let unsubscribe: (() => Promise<void>) | undefined;
    let stopped = false;
    const ready = this.connection.subscriber
      .subscribe(resultKey(id), (text) => {
        if (!stopped) listener(fromCeleryMeta(id, text));
      })
      .then((stop) => {
        unsubscribe = stop;
        if (stopped) void stop();
      });
    const stop = (() => {
      stopped = true;
      void unsubscribe?.();
    }) as ChangeSubscription;
    Object.defineProperty(stop, 'ready', { value: ready });
    return stop;
  }

  async forget(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.client.del(...ids.map(resultKey));
  }

  groupMemberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress> {
    return this.inner.groupMemberDone(groupId, index, size, ttl);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await this.inner.close();
  }
}
