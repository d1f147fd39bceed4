/** What the backend conformance cases share: the fixture contract, the opener, and record builders. */
import type { BackendSettings, ResultBackend, StoreEntry, TaskRecord } from '../../backend';
import type { Codec } from '../../codec';
import type { TaskState } from '../../states';

/** One result backend under test, as the implementation's factory hands it over. */
export interface BackendFixture {
  /** The backend under test. */
  readonly backend: ResultBackend;
  /**
   * A second client of the same store (another process's view), when the implementation can have
   * one: records are then written through it, so notifications are tested across clients.
   */
  readonly peer?: ResultBackend;
  /** Runs after every test: deletes only what this fixture stored (its key prefix) and closes its clients. */
  cleanup(): Promise<void>;
}

/** What a backend factory receives: settings with a unique prefix, and a fresh codec. */
export interface BackendConformanceContext {
  readonly settings: BackendSettings;
  readonly codec: Codec;
}

/** Creates a backend for one test; key everything under `settings.prefix`. */
export type BackendFactory = (context: BackendConformanceContext) => Promise<BackendFixture>;

/** A fixture as the cases see it: `writer` is the peer when there is one, else the backend itself. */
export interface OpenedBackend extends BackendFixture {
  readonly writer: ResultBackend;
  readonly context: BackendConformanceContext;
}

/** Opens a fixture; the suite cleans it up after the test. */
export type OpenBackend = () => Promise<OpenedBackend>;

/** A record of task `id` in `state`, with a fixed date so it can be compared whole. */
export function taskRecord(id: string, state: TaskState, fields: Partial<TaskRecord> = {}): TaskRecord {
  return { id, state, task: 'conformance.task', date: 1_700_000_000_000, ...fields };
}

/** A store entry kept for `ttl` ms (a minute unless given). */
export function entry(record: TaskRecord, ttl = 60_000): StoreEntry {
  return { record, ttl };
}
