/**
 * A ResultBackend that speaks Celery's Redis result backend: each record is the JSON string
 * `celery-task-meta-<id>` (with its TTL), and each change is published on a channel of the same
 * name, as Celery does, so Python's `AsyncResult.get()` and Celeriac's `await result` both wait by
 * pub/sub, without polling. What Celery's format has no field for rides beside it, so a record
 * reads back whole (see protocol/result.ts); a record of a state in between never replaces a final
 * one (see result-writes.ts). A SUCCESS also sends the next step of a Celery chain (see
 * {@link CeleryWorkflow}), in the same write. Group counting for Celeriac's own chords and the event
 * log go through an inner {@link RedisBackend} under the app's prefix; events are also sent as Celery
 * events (see {@link CeleryEventLog}).
 */
import { setMaxListeners } from 'node:events';
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
import { RedisBackend, type RedisConnection } from '@celeriac/redis';
import { singleNode, unavailable } from '@celeriac/redis/internal';
import type { Redis } from 'ioredis';
import { fromCeleryMeta } from '../protocol/result';
import type { CeleryWorkflow, FollowUpSender } from '../protocol/workflow';
import { CELERY_BACKEND_CAPABILITIES } from './capabilities';
import { countChordParts } from './chord';
import type { CeleryEventSender } from '../protocol/events';
import { CeleryEventLog, redisEventSender } from './event-log';
import { CeleryKeys } from './keys';
import { writeResults } from './result-writes';

/** What a Celery backend needs beyond a Redis backend's connection and settings. */
export interface CeleryBackendOptions {
  /** kombu's `global_keyprefix` (where chains and chord bodies go, and Celery's event channels). */
  readonly keyPrefix: string;
  /** The app's codec (Celeriac's own fields, the inner event log and chord counters). */
  readonly codec: Codec;
  /** The workflow tracker the app's Celery broker shares: it remembers, this backend sends. */
  readonly workflow: CeleryWorkflow;
  /**
   * What Celery's result backend puts before its key names (`<this>celery-task-meta-<id>`): Celery
   * 5.3+ prepends `result_backend_transport_options`' `global_keyprefix` (see docs/celery-interop.md).
   * @defaultValue `''` (Celery 5.2's keys)
   */
  readonly resultKeyPrefix?: string;
  /**
   * Where the follow-ups (a chain's next step, callbacks, errbacks, a chord's body) go when the broker
   * is not kombu's Redis transport (RabbitMQ): sent once the records are stored, before the worker
   * acks. Left out: pushed to kombu's Redis queues in the same MULTI as the records.
   */
  readonly sendFollowUps?: FollowUpSender;
  /**
   * Where Celery events go when the broker is not kombu's Redis (RabbitMQ's `celeryev` exchange),
   * and what closes it with the backend. Left out: kombu's Redis fanout channels.
   */
  readonly celeryEvents?: { readonly send: CeleryEventSender; close(): Promise<void> };
  /**
   * Told of every batch once it is stored (after its follow-ups): on RabbitMQ, where the results of
   * tasks whose Python caller reads them with the `rpc://` backend are also sent to its reply queue.
   */
  readonly afterStore?: (entries: readonly StoreEntry[]) => Promise<void>;
}

/** A ResultBackend in Celery's Redis result format. */
export class CeleryBackend implements ResultBackend {
  readonly capabilities: BackendCapabilities = CELERY_BACKEND_CAPABILITIES;
  private readonly inner: RedisBackend;
  private readonly client: Redis;
  private readonly keys: CeleryKeys;
  private readonly workflow: CeleryWorkflow;
  private readonly codec: Codec;
  private readonly sendFollowUps: FollowUpSender | undefined;
  private readonly closeEvents: (() => Promise<void>) | undefined;
  private readonly afterStore: ((entries: readonly StoreEntry[]) => Promise<void>) | undefined;
  /** Celeriac's event log, each event also sent on Celery's `celeryev` exchange. */
  readonly events: CeleryEventLog;
  private closed = false;
  /** Ends every wait when the backend closes. */
  private readonly closing = unlimited(new AbortController());

  constructor(
    private readonly connection: RedisConnection,
    settings: BackendSettings,
    options: CeleryBackendOptions,
  ) {
    this.inner = new RedisBackend(connection, settings, options.codec);
    this.client = singleNode(connection.client, "protocol: 'celery'");
    this.keys = new CeleryKeys(options.keyPrefix, settings.prefix, options.resultKeyPrefix);
    this.workflow = options.workflow;
    this.codec = options.codec;
    this.sendFollowUps = options.sendFollowUps;
    this.afterStore = options.afterStore;
    this.events = new CeleryEventLog(
      this.inner.events,
      options.celeryEvents?.send ?? redisEventSender(this.client, options.keyPrefix),
    );
    this.closeEvents = options.celeryEvents ? () => options.celeryEvents!.close() : undefined;
  }

  async store(entries: readonly StoreEntry[], events: readonly CeleriacEvent[] = []): Promise<void> {
    // Events first, on the same connection: whoever a record below wakes finds them sent already.
    const sendingEvents = Promise.all(this.events.add(events));
    const { codec, keys, workflow, sendFollowUps } = this;
    const writes = writeResults(this.client, entries, { codec, keys, workflow, sendsFollowUps: !!sendFollowUps });
    await Promise.all([sendingEvents, writes.sent]).catch((error: unknown) => {
      throw unavailable(error, 'store Celery task results', this.connection);
    });
    if (writes.chordParts.length > 0) {
      await countChordParts(this.client, this.keys, this.workflow, writes.chordParts, sendFollowUps).catch(
        (error: unknown) => {
          throw unavailable(error, 'count the members of a Celery chord', this.connection);
        },
      );
    }
    if (sendFollowUps && writes.followUps.length > 0) await sendFollowUps(writes.followUps);
    await this.afterStore?.(entries.filter((entry) => !writes.refused.has(entry.record.id)));
    if (writes.refused.size > 0) throw new RecordsRefusedError(writes.refused);
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const text = await this.client.get(this.keys.result(id)).catch((error: unknown) => {
      throw unavailable(error, `read the result of task ${id}`, this.connection);
    });
    return text === null ? undefined : fromCeleryMeta(id, text, this.codec);
  }

  async getMany(ids: readonly string[]): Promise<Array<TaskRecord | undefined>> {
    if (ids.length === 0) return [];
    const texts = await this.client.mget(...ids.map((id) => this.keys.result(id)));
    return texts.map((text, index) =>
      text === null ? undefined : fromCeleryMeta(ids[index] as string, text, this.codec),
    );
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
      .subscribe(this.keys.result(id), (text) => {
        if (!stopped) listener(fromCeleryMeta(id, text, this.codec));
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
    if (ids.length > 0) await this.client.del(...ids.map((id) => this.keys.result(id)));
  }

  groupMemberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress> {
    return this.inner.groupMemberDone(groupId, index, size, ttl);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await Promise.all([this.inner.close(), this.closeEvents?.()]);
  }
}

/** `controller`, its signal allowed any number of listeners: every pending wait listens for the close. */
function unlimited(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
