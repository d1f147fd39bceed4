/**
 * The memory result backend: records kept in this process, expired lazily by TTL, with waiters woken
 * by events. Records are stored encoded, as a remote backend would, so values are copies.
 */
import type { BackendCapabilities } from '../capabilities';
import { MEMORY_BACKEND_CAPABILITIES } from './memory-capabilities';
import { EventEmitter } from 'node:events';
import type { ChangeSubscription, GroupProgress, ResultBackend, StoreEntry, TaskRecord, WaitOptions } from '../backend';
import type { Codec } from '../codec';
import type { CeleriacEvent } from '../events/event-types';
import { MemoryEventLog } from './memory-event-log';
import { closedWhileWaiting } from '../errors';
import { isReadyState } from '../states';

/** The event that ends pending waits when the backend closes (not a task id: ids are strings). */
const CLOSED = Symbol('closed');

interface Stored {
  text: string;
  expiresAt: number;
}

/** A ResultBackend kept in this process's memory. */
export class MemoryBackend implements ResultBackend {
  readonly capabilities: BackendCapabilities = MEMORY_BACKEND_CAPABILITIES;
  private readonly records = new Map<string, Stored>();
  private readonly groups = new Map<string, { members: Set<number>; expiresAt: number }>();
  private readonly changes = new EventEmitter().setMaxListeners(0);

  /** The app's event log, kept here too. */
  readonly events: MemoryEventLog;

  constructor(
    private readonly codec: Codec,
    eventsMaxLength?: number,
  ) {
    this.events = new MemoryEventLog(eventsMaxLength);
  }

  async store(entries: readonly StoreEntry[], events: readonly CeleriacEvent[] = []): Promise<void> {
    if (events.length > 0) void this.events.append(events);
    const now = Date.now();
    const texts = entries.map((entry) => {
      const label = () => `the record of task ${entry.record.id}`;
      if (entry.resultJson === undefined) return this.codec.stringify(entry.record, label);
      return this.codec.stringifyWithJson(
        entry.record as unknown as Record<string, unknown>,
        'result',
        entry.resultJson,
        label,
      );
    });
    entries.forEach((entry, index) => {
      // A state in between never replaces a final record (as on Redis: a late write must not undo an outcome).
      if (!isReadyState(entry.record.state) && this.finalStored(entry.record.id, now)) return;
      this.records.set(entry.record.id, { text: texts[index] as string, expiresAt: now + entry.ttl });
    });
    // Each entry's own record: a batch may hold several states of one task (STARTED, then SUCCESS).
    entries.forEach((entry, index) => this.changes.emit(entry.record.id, this.codec.parse(texts[index] as string)));
  }

  /** True when `id` has a live record of a final state. */
  private finalStored(id: string, now: number): boolean {
    const stored = this.records.get(id);
    return (
      stored !== undefined &&
      stored.expiresAt > now &&
      isReadyState((this.codec.parse(stored.text) as TaskRecord).state)
    );
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    return this.decode(id);
  }

  async getMany(ids: readonly string[]): Promise<Array<TaskRecord | undefined>> {
    return ids.map((id) => this.decode(id));
  }

  waitFor(id: string, signal?: AbortSignal, options: WaitOptions = {}): Promise<TaskRecord> {
    return new Promise((resolve, reject) => {
      const current = this.decode(id);
      if (current && isReadyState(current.state)) return resolve(current);
      if (signal?.aborted) return reject(signal.reason);
      const onRecord = (record: TaskRecord | undefined) => {
        if (!record || !isReadyState(record.state)) return;
        cleanup();
        resolve(record);
      };
      // Ends the wait with an error: the backend closed, the signal aborted, or the publish failed.
      const fail = (error: unknown) => {
        cleanup();
        reject(error);
      };
      const onAbort = () => fail(signal?.reason);
      const cleanup = () => {
        this.changes.off(id, onRecord);
        this.changes.off(CLOSED, fail);
        signal?.removeEventListener('abort', onAbort);
      };
      this.changes.on(id, onRecord);
      this.changes.on(CLOSED, fail);
      signal?.addEventListener('abort', onAbort, { once: true });
      options.until?.then(undefined, fail);
    });
  }

  onChange(id: string, listener: (record: TaskRecord) => void): ChangeSubscription {
    const onRecord = (record: TaskRecord | undefined) => record && listener(record);
    this.changes.on(id, onRecord);
    return Object.assign(() => void this.changes.off(id, onRecord), { ready: Promise.resolve() });
  }

  async forget(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.records.delete(id);
  }

  async groupMemberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress> {
    const now = Date.now();
    let group = this.groups.get(groupId);
    if (!group || group.expiresAt <= now) {
      group = { members: new Set(), expiresAt: now + ttl };
      this.groups.set(groupId, group);
    }
    const before = group.members.size;
    group.members.add(index);
    const done = group.members.size;
    return { done, completed: done === size && before < size, repeated: done === before };
  }

  async close(): Promise<void> {
    this.changes.emit(CLOSED, closedWhileWaiting());
    this.changes.removeAllListeners();
  }

  private decode(id: string): TaskRecord | undefined {
    const stored = this.records.get(id);
    if (!stored) return undefined;
    if (stored.expiresAt <= Date.now()) {
      this.records.delete(id);
      return undefined;
    }
    return this.codec.parse(stored.text) as TaskRecord;
  }
}
