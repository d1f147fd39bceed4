/**
 * Periodic entries: what users pass to `app.schedule()` and `app.beat.add()`, checked once and
 * turned into the form the scheduler fires. Every problem is a `CELERIAC_INVALID_SCHEDULE` error that
 * names the entry.
 */
import {
  CeleriacError,
  type ApplyOptions,
  type BeatTaskOptions,
  type CatchUpPolicy,
  type Codec,
  type SerializedValue,
  type StoredBeatEntry,
} from '@celeriac/core';
import { BEAT_OPTION_KEYS, checkBeatEntrySignature, signBeatEntry } from '@celeriac/core/internal';
import type { BeatHost } from './host';
import { fingerprint, invalidSchedule, type Schedule } from './schedules/schedule';
import { scheduleFromSpec, toSchedule, type ScheduleInput } from './schedules/from-spec';

/** A task an entry can name: a task handle (typed arguments) or, as a string, a task's name. */
export interface TaskRef<A extends unknown[]> {
  readonly name: string;
  applyAsync(args: A, options?: ApplyOptions): unknown;
}

/** One periodic entry: which task, when, with which arguments and call options. */
export interface ScheduleEntry<A extends unknown[] = unknown[]> {
  /** The task to send: its handle (the arguments are then type-checked) or its name. */
  task: TaskRef<A> | string;
  /** When: `crontab(...)`, `every(...)`, `at(...)`, or a Date for a one-off slot. */
  schedule: ScheduleInput;
  /**
   * The task's arguments, the same at every slot.
   * @defaultValue `[]`
   */
  args?: NoInfer<A>;
  /** Call options of every firing: queue, priority, expires, retries, time limits, ... */
  options?: BeatTaskOptions;
  /**
   * Slots that passed while no scheduler ran: `'skip'` them (a slot up to one lease late still
   * fires), fire `'once'` for all of them, or fire `'all'` (the latest 100 at most).
   * @defaultValue `'once'`
   */
  catchUp?: CatchUpPolicy;
}

/** Where an entry comes from: `app.schedule()` in code, or `app.beat.add()` at run time. */
export type EntrySource = 'code' | 'runtime';

/** An entry checked and ready to fire. */
export interface ResolvedEntry {
  readonly name: string;
  readonly task: string;
  readonly schedule: Schedule;
  /** The arguments, a fresh copy for every firing. */
  args(): unknown[];
  readonly options: BeatTaskOptions;
  readonly catchUp: CatchUpPolicy;
  readonly source: EntrySource;
  /** Runtime entries: when they were added or last changed (slots count from then). */
  readonly since: number | undefined;
  /** Equal for equal schedules; a change makes the entry start over. */
  readonly fingerprint: string;
}

/** Checks a call of an entry: the app builds (without sending) the message it would send. */
export type CallCheck = (task: string, args: readonly unknown[], options: ApplyOptions) => void;

/** What reading and writing stored entries needs: the app's codec, call check and secret. */
export interface EntryStorage {
  readonly codec: Codec;
  readonly check: CallCheck;
  /** Signs stored entries, and then only signed ones are read (see `signBeatEntry`). */
  readonly secret: string | undefined;
}

/** The entry storage of `host`'s app. */
export function entryStorageOf(host: BeatHost): EntryStorage {
  return { codec: host.codec, check: callCheckOf(host), secret: host.options.secret };
}

/** The check of calls made through `host`: options as a message takes them, arguments as the codec sends them. */
export function callCheckOf(host: BeatHost): CallCheck {
  return (task, args, options) => {
    host.buildMessage(task, args, options);
    host.codec.assertSerializable(args, `the arguments of ${task}`);
  };
}

/** The longest entry name (as long as a task id may be). */
const MAX_NAME_LENGTH = 200;
const CATCH_UP: readonly CatchUpPolicy[] = ['skip', 'once', 'all'];
const OPTION_KEYS: ReadonlySet<string> = new Set(BEAT_OPTION_KEYS);

/** The error of entry `name`. */
export function invalidEntry(name: string, problem: string, cause?: unknown): CeleriacError {
  return invalidSchedule(`Schedule entry "${name}": ${problem}`, cause);
}

/** Why a stored entry is not fired: a code entry has its name, or it does not resolve here. */
export type IgnoredEntry = { name: string; shadowed: true } | { name: string; shadowed: false; error: Error };

/**
 * The stored (runtime) entries this app can fire, in store order: those whose names no code entry
 * takes, that are signed when the app has a secret, and that resolve here (their task's arguments
 * and options check out); `onIgnored` hears of the others.
 */
export function runtimeEntries(
  stored: readonly StoredBeatEntry[],
  codeNames: ReadonlySet<string>,
  storage: EntryStorage,
  onIgnored: (ignored: IgnoredEntry) => void,
): ResolvedEntry[] {
  const entries: ResolvedEntry[] = [];
  for (const entry of stored) {
    if (codeNames.has(entry.name)) {
      onIgnored({ name: entry.name, shadowed: true });
      continue;
    }
    try {
      entries.push(fromStored(entry, storage));
    } catch (error) {
      onIgnored({ name: entry.name, shadowed: false, error: error as Error });
    }
  }
  return entries;
}

/** Checks an entry given in code or through the API; throws `CELERIAC_INVALID_SCHEDULE` naming it. */
export function resolveEntry(
  name: string,
  entry: ScheduleEntry,
  source: EntrySource,
  check: CallCheck,
  since?: number,
): ResolvedEntry {
  if (typeof name !== 'string' || name.trim().length === 0) {
    throw new CeleriacError(
      'CELERIAC_INVALID_SCHEDULE',
      'A schedule entry needs a non-empty name, e.g. app.schedule("cleanup", { task, schedule }).',
    );
  }
  if (name.length > MAX_NAME_LENGTH)
    throw new CeleriacError(
      'CELERIAC_INVALID_SCHEDULE',
      `A schedule entry's name takes at most ${MAX_NAME_LENGTH} characters (got one of ${name.length}).`,
    );
  if (typeof entry !== 'object' || entry === null)
    throw invalidEntry(name, 'expected { task, schedule, args?, options?, catchUp? }.');
  const task = taskName(name, entry.task);
  const schedule = withName(name, () => toSchedule(entry.schedule));
  const args = entry.args ?? [];
  if (!Array.isArray(args)) throw invalidEntry(name, `args must be an array, got ${typeof args}.`);
  const options = checkOptions(name, entry.options ?? {});
  const catchUp = entry.catchUp ?? 'once';
  if (!CATCH_UP.includes(catchUp))
    throw invalidEntry(name, `catchUp must be 'skip', 'once' or 'all', got ${JSON.stringify(catchUp)}.`);
  withName(name, () => check(task, args, options));
  const frozen = [...args];
  return {
    name,
    task,
    schedule,
    args: () => [...frozen],
    options,
    catchUp,
    source,
    since,
    fingerprint: fingerprint(schedule.spec),
  };
}

/** The data form of a runtime entry, as a store keeps it (signed when the app has a secret). */
export function toStored(entry: ResolvedEntry, storage: EntryStorage, updatedAt: number): StoredBeatEntry {
  const args: SerializedValue = storage.codec.serialize(
    entry.args(),
    `the arguments of schedule entry "${entry.name}"`,
  );
  return signBeatEntry(
    {
      name: entry.name,
      task: entry.task,
      schedule: entry.schedule.spec,
      args,
      options: entry.options,
      catchUp: entry.catchUp,
      updatedAt,
    },
    storage.secret,
  );
}

/**
 * A stored runtime entry, checked again (it may come from another version of the app, or, without
 * a valid signature, from someone else: `CELERIAC_BAD_SIGNATURE`).
 */
export function fromStored(stored: StoredBeatEntry, storage: EntryStorage): ResolvedEntry {
  const { codec, check } = storage;
  checkBeatEntrySignature(stored, storage.secret);
  const name = String(stored.name);
  const schedule = withName(name, () => scheduleFromSpec(stored.schedule));
  const args = withName(name, () => codec.deserialize(stored.args));
  return resolveEntry(
    name,
    { task: stored.task, schedule, args: args as unknown[], options: stored.options, catchUp: stored.catchUp },
    'runtime',
    check,
    stored.updatedAt,
  );
}

function taskName(name: string, task: ScheduleEntry['task']): string {
  if (typeof task === 'string' && task.length > 0) return task;
  if (typeof task === 'function' || (typeof task === 'object' && task !== null)) {
    const handle = task as Partial<TaskRef<unknown[]>>;
    if (typeof handle.name === 'string' && handle.name.length > 0 && typeof handle.applyAsync === 'function')
      return handle.name;
  }
  throw invalidEntry(name, 'task must be a task handle (what app.task() returns) or a task name.');
}

function checkOptions(name: string, options: BeatTaskOptions): BeatTaskOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalidEntry(name, 'options must be an object.');
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) {
      throw invalidEntry(
        name,
        `option "${key}" is not allowed here (allowed: ${[...OPTION_KEYS].join(', ')}); beat chooses the task id and ` +
          `the time of each firing.`,
      );
    }
  }
  if (options.expires !== undefined && typeof options.expires !== 'number' && typeof options.expires !== 'string') {
    throw invalidEntry(name, 'expires must be a duration (e.g. "10m"): it counts from each firing.');
  }
  return { ...options };
}

function withName<T>(name: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw invalidEntry(name, message, error);
  }
}
