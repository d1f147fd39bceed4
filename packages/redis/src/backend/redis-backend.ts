/**
 * The Redis result backend: one string key per task record with a TTL, and completion notices over
 * pub/sub: records of tasks a client sent go straight to that client's reply channel (no extra
 * read), and the ids of finished tasks go to a shared channel for waiters in other processes.
 */
import {
  BrokerUnavailableError,
  CeleriacError,
  MAX_RESULT_TTL_MS,
  RecordsRefusedError,
  type BackendSettings,
  type CeleriacEvent,
  type ChangeSubscription,
  type Codec,
  type GroupProgress,
  type ManyWaitOptions,
  type ResultBackend,
  type BackendCapabilities,
  type StoreEntry,
  type TaskRecord,
  type WaitOptions,
} from '@celeriac/core';
import { closedWhileWaiting, isReadyState, READY_STATES } from '@celeriac/core/internal';
import { ManyWait, ManyWaits } from './many-waits';
import { PendingWait, PendingWaits } from './pending-waits';
import { GroupProgressBatcher } from './group-progress';
import { QuietReread } from './quiet-reread';
import { RecentNotices } from './recent-notices';
import { awaitReplicas } from '../connection/replication';
import { RedisEventLog } from '../events/redis-event-log';
import { corked, type RedisConnection } from '../connection/connection';
import { KeySpace } from '../keys';
import { groupBySlot } from '../connection/key-slot';
import { isCluster, publish } from '../connection/redis-client';
import { isNoPermission, noPermission } from '../connection/no-permission';
import { scriptKeys } from '../scripting/script-keys';
import { runScript } from '../scripting/scripts';
import { REDIS_BACKEND_CAPABILITIES } from '../capabilities';
import { storeCalls, type RecordSet } from './store-records';
import { unavailable } from '../connection/unavailable';

/** A ResultBackend on Redis. */
export class RedisBackend implements ResultBackend {
  readonly capabilities: BackendCapabilities = REDIS_BACKEND_CAPABILITIES;
  private readonly keys: KeySpace;
  private readonly waits = new PendingWaits();
  /** Waits for many tasks at once (groups). */
  private readonly many = new ManyWaits();
  /** Waits begun in this tick, checked together at its end. */
  private unchecked: PendingWait[] = [];
  private readonly listeners = new Map<string, Set<(record: TaskRecord) => void>>();
  private replySubscription: Promise<unknown> | undefined;
  private doneSubscription: Promise<() => Promise<void>> | undefined;
  private foreignWaits = 0;
  /** Finished-task notices that came before anyone waited. */
  private readonly recent = new RecentNotices();
  /** The app's event log, a stream beside the records. */
  readonly events: RedisEventLog;
  /** Chord members counted together, per group and tick. */
  private readonly groupProgress = new GroupProgressBatcher((...args) => this.countMembers(...args));
  /** Reads what is awaited again when no notice came for a while (see quiet-reread.ts). */
  private readonly quiet = new QuietReread(
    () => this.waits.any() || this.many.any() || this.listeners.size > 0,
    () => this.recheckWaiters(),
  );

  constructor(
    private readonly connection: RedisConnection,
    private readonly settings: BackendSettings,
    private readonly codec: Codec,
  ) {
    this.keys = new KeySpace(settings.prefix);
    this.events = new RedisEventLog(connection, this.keys, settings.eventsMaxLength ?? 100_000);
    connection.retain();
  }

  async store(entries: readonly StoreEntry[], events: readonly CeleriacEvent[] = []): Promise<void> {
    // Within one batch only the last record of a task is written (e.g. STARTED then SUCCESS), but
    // the sender hears of every state.
    const latest = new Map<string, StoreEntry>();
    for (const entry of entries) latest.set(entry.record.id, entry);
    // Everything is encoded and checked first: a record that cannot be stored is refused alone,
    // before anything is written, and no notice announces it.
    const refused = new Map<string, Error>();
    const encoded: Array<[entry: StoreEntry, text: string]> = [];
    for (const entry of entries) {
      const last = latest.get(entry.record.id) === entry;
      if ((!last && entry.replyTo === undefined) || refused.has(entry.record.id)) continue;
      try {
        const label = () => `the record of task ${entry.record.id}`;
        const { record, resultJson } = entry;
        const text =
          resultJson === undefined
            ? this.codec.stringify(record, label)
            : this.codec.stringifyWithJson(record as unknown as Record<string, unknown>, 'result', resultJson, label);
        encoded.push([entry, text]);
        if (last) checkTtl(entry);
      } catch (error) {
        refused.set(entry.record.id, error as Error);
      }
    }
    const sets: RecordSet[] = [];
    const replies = new Map<string, Array<[string, string]>>();
    const finished: string[] = [];
    for (const [entry, text] of encoded) {
      const { id } = entry.record;
      if (refused.has(id)) continue;
      const last = latest.get(id) === entry;
      if (last) {
        const ttl = Math.max(1, Math.round(entry.ttl));
        sets.push({ id, key: this.keys.result(id), text, ttl, final: isReadyState(entry.record.state) });
      }
      // This client's own tasks (a worker in the sender's process) are told here below, not
      // through Redis: the same notice without a publish and its decoding.
      if (entry.replyTo !== undefined && entry.replyTo !== this.settings.clientId) {
        const list = replies.get(entry.replyTo) ?? [];
        list.push([id, text]);
        replies.set(entry.replyTo, list);
      }
      if (last && isReadyState(entry.record.state)) finished.push(id);
    }
    // Plain commands in one corked write, not a pipeline: ioredis's Pipeline costs more per batch
    // than the commands themselves, and this runs for every batch a worker settles.
    const { client } = this.connection;
    const writes = corked(client, () => [
      // Events first: whoever a notice below wakes finds them in the log already.
      ...this.events.add(events),
      ...storeCalls(client, sets, refused),
      ...[...replies].map(([clientId, list]) =>
        publish(client, this.keys.replyChannel(clientId), JSON.stringify(list)),
      ),
      ...(finished.length > 0 ? [publish(client, this.keys.doneChannel, JSON.stringify(finished))] : []),
    ]);
    await Promise.all(writes).catch((error: unknown) => {
      throw isNoPermission(error)
        ? noPermission(error, 'store task records and announce them on their channels')
        : error;
    });
    // The worker acks only after this: with 'replicated', a result a failover loses was never acked.
    await awaitReplicas(client, this.settings.replication, 'the task records');
    // Records of this client's tasks are told here as its reply channel would, in order and decoded
    // from the text stored; the others (revokes, dead-letterings, tasks of other senders) are told
    // to waiters and listeners here at once.
    for (const [entry, text] of encoded) {
      if (entry.replyTo === this.settings.clientId && !refused.has(entry.record.id))
        this.onNotice(entry.record.id, text);
    }
    for (const entry of entries) {
      const { record } = entry;
      if (refused.has(record.id)) continue;
      if (entry.replyTo !== this.settings.clientId && this.awaits(record.id)) {
        this.deliver(
          entry.resultJson === undefined ? record : { ...record, result: JSON.parse(entry.resultJson) as unknown },
        );
      }
    }
    if (refused.size > 0) throw new RecordsRefusedError(refused);
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const text = await this.connection.client.get(this.keys.result(id)).catch((error: unknown) => {
      throw unavailable(error, 'read a result', this.connection);
    });
    return text === null ? undefined : (this.codec.parse(text) as TaskRecord);
  }

  async getMany(ids: readonly string[]): Promise<Array<TaskRecord | undefined>> {
    if (ids.length === 0) return [];
    const { client } = this.connection;
    const keys = ids.map((id) => this.keys.result(id));
    // A cluster keeps each record in its own slot: one MGET per slot, sent together.
    const groups = isCluster(client) ? groupBySlot(keys, (key) => key) : [keys];
    const texts = new Map<string, string | null>();
    await Promise.all(
      corked(client, () =>
        groups.map((group) =>
          client.mget(...group).then((found) => group.forEach((key, i) => texts.set(key, found[i] ?? null))),
        ),
      ),
    ).catch((error: unknown) => {
      throw unavailable(error, 'read results', this.connection);
    });
    return keys.map((key) => {
      const text = texts.get(key);
      return text === null || text === undefined ? undefined : (this.codec.parse(text) as TaskRecord);
    });
  }

  waitFor(id: string, signal?: AbortSignal, options: WaitOptions = {}): Promise<TaskRecord> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const wait = new PendingWait(id, options.sentHere !== true, options.sentAt, signal);
    this.waits.add(wait);
    this.quiet.arm();
    options.until?.then(undefined, (error: unknown) => this.waits.fail(wait, error));
    // The waits begun in this tick are checked together once they are all registered.
    if (this.unchecked.length === 0) {
      queueMicrotask(() => {
        const batch = this.takeUnchecked();
        // A failure no step caught ends the waits it concerns, never unhandled.
        this.check(batch).catch((error: unknown) => batch.forEach((other) => this.waits.fail(other, error)));
      });
    }
    this.unchecked.push(wait);
    return wait.foreign
      ? wait.promise.finally(() => (wait.counted ? this.removeForeignWait() : undefined))
      : wait.promise;
  }

  /**
   * Waits for tasks this client sent as one wait (see ManyWaits); tasks sent elsewhere are awaited
   * one by one. Like `check`, it subscribes before it reads, takes the notices that came before it
   * began, and reads (one MGET per 1,000) only when a notice may have been missed.
   */
  waitForMany(
    ids: readonly string[],
    signal?: AbortSignal,
    options: ManyWaitOptions = {},
  ): Promise<Array<TaskRecord | undefined>> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (options.sentHere !== true) return this.waitEach(ids, signal, options);
    const wait = new ManyWait(ids, options.sentAt, signal, options.stopOn);
    this.many.add(wait);
    this.quiet.arm();
    options.until?.then(undefined, (error: unknown) => this.many.fail(wait, error));
    this.checkMany(wait).catch((error: unknown) => this.many.fail(wait, error));
    return wait.promise;
  }

  private async checkMany(wait: ManyWait): Promise<void> {
    await this.ensureReplySubscription();
    for (const id of wait.missing()) {
      const noticed = this.recent.find(id, wait.sentAt);
      if (noticed !== undefined) this.many.offer(this.codec.parse(noticed) as TaskRecord);
    }
    if (wait.sentAt !== undefined && this.recent.wouldHaveSeen(wait.sentAt)) return;
    const missing = wait.missing();
    const reads: Array<Promise<void>> = [];
    for (let start = 0; start < missing.length && !wait.done; start += READ_CHUNK) {
      const chunk = missing.slice(start, start + READ_CHUNK);
      reads.push(this.getMany(chunk).then((records) => records.forEach((record) => record && this.many.offer(record))));
    }
    await Promise.all(reads).catch(unlessUnavailable((error) => Promise.reject(error)));
  }

  /** `waitForMany` for tasks sent elsewhere: a `waitFor` each. */
  private waitEach(
    ids: readonly string[],
    signal: AbortSignal | undefined,
    options: ManyWaitOptions,
  ): Promise<Array<TaskRecord | undefined>> {
    const { stopOn, ...hint } = options;
    return new Promise((resolve, reject) => {
      const records = new Array<TaskRecord | undefined>(ids.length);
      let left = ids.length;
      if (left === 0) resolve(records);
      ids.forEach((id, index) => {
        this.waitFor(id, signal, hint).then((record) => {
          records[index] = record;
          left -= 1;
          if (left === 0 || stopOn?.(record) === true) resolve(records);
        }, reject);
      });
    });
  }

  private takeUnchecked(): PendingWait[] {
    const batch = this.unchecked;
    this.unchecked = [];
    return batch;
  }

  /**
   * Subscribes before reading, so a record stored in between is not missed; then settles the waits
   * whose notice came before they began, and reads (one MGET per 1,000) those whose notice may have
   * been missed. A signal can end a wait at any point, also while Redis is unreachable.
   */
  private async check(batch: readonly PendingWait[]): Promise<void> {
    const fail = (waits: readonly PendingWait[]) => (error: unknown) => waits.forEach((w) => this.waits.fail(w, error));
    const live = () => batch.filter((wait) => !wait.done);
    try {
      await this.ensureReplySubscription();
    } catch (error) {
      return fail(batch)(error);
    }
    const foreign = live().filter((wait) => wait.foreign);
    if (foreign.length > 0) {
      try {
        for (const wait of foreign) wait.counted = true;
        await this.addForeignWaits(foreign.length);
      } catch (error) {
        fail(foreign)(error);
      }
    }
    const toRead: PendingWait[] = [];
    for (const wait of live()) {
      // The notice may have come before this wait began: use it, or read unless no notice of a task
      // sent then can have been missed.
      let early: TaskRecord | undefined;
      try {
        const noticed = wait.foreign ? undefined : this.recent.find(wait.id, wait.sentAt);
        early = noticed === undefined ? undefined : (this.codec.parse(noticed) as TaskRecord);
      } catch (error) {
        this.waits.fail(wait, error);
        continue;
      }
      if (early && isReadyState(early.state)) this.waits.resolve(wait, early);
      else if (wait.foreign || wait.sentAt === undefined || !this.recent.wouldHaveSeen(wait.sentAt)) toRead.push(wait);
    }
    for (let start = 0; start < toRead.length; start += READ_CHUNK) {
      const chunk = toRead.slice(start, start + READ_CHUNK);
      this.getMany(chunk.map((wait) => wait.id)).then(
        (records) => {
          chunk.forEach((wait, index) => {
            const record = records[index];
            if (record && isReadyState(record.state)) this.waits.resolve(wait, record);
          });
        },
        unlessUnavailable(fail(chunk)),
      );
    }
  }

  onChange(id: string, listener: (record: TaskRecord) => void): ChangeSubscription {
    const set = this.listeners.get(id) ?? new Set();
    set.add(listener);
    this.listeners.set(id, set);
    this.quiet.arm();
    const ready = this.ensureReplySubscription().then(() => undefined);
    ready.catch(() => undefined);
    const unsubscribe = () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
    return Object.assign(unsubscribe, { ready });
  }

  async forget(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { client } = this.connection;
    const keys = ids.map((id) => this.keys.result(id));
    const groups = isCluster(client) ? groupBySlot(keys, (key) => key) : [keys];
    await Promise.all(groups.map((group) => client.del(...group)));
    // After the delete: a notice that was still on its way is dropped too. (Other processes keep
    // the notices they heard; see docs/redis.md.)
    for (const id of ids) this.recent.delete(id);
  }

  groupMemberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress> {
    return this.groupProgress.memberDone(groupId, index, size, ttl);
  }

  /** Counts members of one group in one script call (see group-done-1.lua). */
  private async countMembers(groupId: string, size: number, ttl: number, indices: number[]): Promise<GroupProgress[]> {
    const replies = await runScript<number[]>(
      this.connection.client,
      'groupDone',
      scriptKeys('groupDone', { group: this.keys.group(groupId) }),
      [size, Math.round(ttl), ...indices],
    );
    return indices.map((_, i) => ({
      done: replies[i * 3] as number,
      completed: replies[i * 3 + 1] === 1,
      repeated: replies[i * 3 + 2] === 1,
    }));
  }

  async close(): Promise<void> {
    this.quiet.stop();
    this.waits.failAll(closedWhileWaiting());
    this.many.failAll(closedWhileWaiting());
    this.listeners.clear();
    await this.connection.release();
  }

  private ensureReplySubscription(): Promise<unknown> {
    if (!this.replySubscription) {
      // Notices sent while the subscriber was disconnected are lost: while it is, no wait may count
      // on hearing its task's notice; once it is back, tasks sent before must be read, and so is
      // what is awaited now. (A cluster node that left counts as such a gap too.)
      const { subscriber } = this.connection;
      subscriber.onDisconnect(() => (this.recent.listeningSince = undefined));
      subscriber.onReconnect(() => {
        this.recent.listeningSince = Date.now();
        this.recheckWaiters();
      });
      this.replySubscription = this.connection.subscriber.subscribe(
        this.keys.replyChannel(this.settings.clientId),
        (message) => this.onReply(message),
      );
      this.replySubscription.then(
        () => (this.recent.listeningSince = Date.now()),
        () => undefined,
      );
    }
    return this.replySubscription;
  }

  private onReply(message: string): void {
    this.quiet.heard();
    for (const [id, text] of JSON.parse(message) as Array<[string, string]>) this.onNotice(id, text);
  }

  /** A record of a task this client sent, heard on its reply channel or stored by this process. */
  private onNotice(id: string, text: string): void {
    // Kept even when delivered: a later wait on the same task (a second get()) finds it here.
    if (isReadyText(text)) this.recent.add(id, text);
    if (this.awaits(id)) this.deliver(this.codec.parse(text) as TaskRecord);
  }

  private async addForeignWaits(count: number): Promise<void> {
    this.foreignWaits += count;
    this.doneSubscription ??= this.connection.subscriber.subscribe(this.keys.doneChannel, (message) => {
      this.quiet.heard();
      const ids = (JSON.parse(message) as string[]).filter((id) => this.waits.has(id) || this.many.has(id));
      if (ids.length === 0) return;
      void this.getMany(ids).then(
        (records) => records.forEach((record) => record && this.deliver(record)),
        () => undefined,
      );
    });
    await this.doneSubscription;
  }

  private async removeForeignWait(): Promise<void> {
    this.foreignWaits -= 1;
    if (this.foreignWaits > 0 || !this.doneSubscription) return;
    const subscription = this.doneSubscription;
    this.doneSubscription = undefined;
    await (
      await subscription
    )();
  }

  private recheckWaiters(): void {
    const ids = [...new Set([...this.waits.ids(), ...this.listeners.keys(), ...this.many.ids()])];
    for (let start = 0; start < ids.length; start += READ_CHUNK) this.recheck(ids.slice(start, start + READ_CHUNK));
  }

  /**
   * Re-reads the records of `ids` still awaited. A read that fails (the command connections may still
   * be coming back: on a cluster the subscriber can be back first) is tried again shortly, or those
   * waiters would wait for notices that were lost.
   */
  private recheck(ids: readonly string[]): void {
    const awaited = ids.filter((id) => this.awaits(id));
    if (awaited.length === 0) return;
    this.getMany(awaited).then(
      (records) => records.forEach((record) => record && this.deliver(record)),
      () => setTimeout(() => this.recheck(awaited), RECHECK_RETRY_MS).unref(),
    );
  }

  private deliver(record: TaskRecord): void {
    for (const listener of [...(this.listeners.get(record.id) ?? [])]) listener(record);
    if (!isReadyState(record.state)) return;
    this.waits.resolveAll(record);
    this.many.offer(record);
  }

  /** True when something here awaits or listens to task `id`. */
  private awaits(id: string): boolean {
    return this.waits.has(id) || this.many.has(id) || this.listeners.has(id);
  }
}

/** A cheap pre-check that a record's text is in a ready state (confirmed after decoding). */
/** Finds a ready state in a record's text without parsing it. */
const READY_TEXT = new RegExp(`"state":"(${[...READY_STATES].join('|')})"`);

function isReadyText(text: string): boolean {
  return READY_TEXT.test(text);
}

/**
 * Passes a failed read on to `fail`, unless Redis was unreachable: the waits then stay, and are read
 * again at the reconnect (or after a quiet while, see quiet-reread.ts), so a wait across an outage
 * resolves from the record. (`get({ timeout })` bounds a wait in a longer one.)
 */
function unlessUnavailable<T>(fail: (error: unknown) => T): (error: unknown) => T | undefined {
  return (error) => (error instanceof BrokerUnavailableError ? undefined : fail(error));
}

/** Most keys per MGET of awaited records. */
const READ_CHUNK = 1_000;
/** How soon a failed re-read of awaited records after a reconnect is tried again. */
const RECHECK_RETRY_MS = 250;

/** Refuses a TTL that Redis would refuse, so that the record fails alone (see store-records-n.lua). */
function checkTtl(entry: StoreEntry): void {
  const { ttl } = entry;
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0 || ttl > MAX_RESULT_TTL_MS) {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The record of task ${entry.record.id} has a TTL of ${String(ttl)} ms; Redis keeps records for 1 to ` +
        `${MAX_RESULT_TTL_MS} ms.`,
    );
  }
}
