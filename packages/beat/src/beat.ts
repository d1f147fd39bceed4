/**
 * `app.beat`: the app's periodic entries. Entries in code come from `app.schedule()`; entries added
 * at run time (`add`, `remove`) live in the store, so any process of the app can manage them and
 * running schedulers pick changes up at once. `scheduler()` makes the process that fires them.
 */
import { CeleriacError, type BeatStore, type CeleriacCore, type ScheduleSpec } from '@celeriac/core';
import { runtimeOf } from '@celeriac/core/internal';
import { systemClock, type Clock } from './clock';
import {
  entryStorageOf,
  invalidEntry,
  runtimeEntries,
  resolveEntry,
  toStored,
  type EntrySource,
  type EntryStorage,
  type ResolvedEntry,
  type ScheduleEntry,
} from './entries';
import type { BeatHost } from './host';
import { Scheduler } from './scheduler';
import type { SchedulerOptions } from './options';

/** One entry as `list()` shows it. */
export interface BeatEntryInfo {
  readonly name: string;
  readonly task: string;
  /** The schedule as data. */
  readonly schedule: ScheduleSpec;
  /** The schedule in words, e.g. `cron "0 3 * * *" (Asia/Shanghai)`. */
  readonly description: string;
  readonly args: unknown[];
  readonly options: ScheduleEntry['options'];
  readonly catchUp: NonNullable<ScheduleEntry['catchUp']>;
  /** `'code'` (from `app.schedule`) or `'runtime'` (from `app.beat.add`). */
  readonly source: EntrySource;
  /** The last slot fired (epoch ms), when the store has one. */
  readonly lastFired: number | undefined;
  /** The next slot after now (epoch ms), when there is one. */
  readonly next: number | undefined;
}

/** Options of {@link Beat}. */
export interface BeatOptions {
  /** The clock of runtime entries' change times. @defaultValue the system clock */
  clock?: Clock;
}

/** The periodic entries of one app, and the schedulers that fire them. */
export class Beat {
  private readonly code = new Map<string, ResolvedEntry>();
  private readonly schedulers = new Set<Scheduler>();
  private storeInstance: BeatStore | undefined;
  private readonly clock: Clock;
  private readonly storage: EntryStorage;
  private closing: Promise<void> | undefined;

  private readonly host: BeatHost;

  /** The periodic entries of `app` (what `app.beat` is), kept in the store `openStore` opens. */
  constructor(
    app: CeleriacCore,
    private readonly openStore: () => BeatStore,
    options: BeatOptions = {},
  ) {
    const host = runtimeOf(app);
    this.host = host;
    this.clock = options.clock ?? systemClock;
    this.storage = entryStorageOf(host);
  }

  /** The store, opened on first use. */
  get store(): BeatStore {
    if (this.closing)
      throw new CeleriacError('CELERIAC_CLOSED', 'This app was closed; create a new one to manage its schedule.');
    if (!this.storeInstance) {
      this.storeInstance = this.openStore();
      this.host.track(this);
    }
    return this.storeInstance;
  }

  /**
   * Defines an entry in code (what `app.schedule()` calls). Throws `CELERIAC_INVALID_SCHEDULE`,
   * naming the entry, for a bad schedule, task, argument or option, or a name already defined.
   */
  define<A extends unknown[]>(name: string, entry: ScheduleEntry<A>): void {
    const resolved = resolveEntry(name, entry, 'code', this.storage.check);
    if (this.code.has(resolved.name))
      throw invalidEntry(name, 'an entry with this name is already scheduled in code; pick another name.');
    this.code.set(resolved.name, resolved);
    for (const scheduler of this.schedulers) scheduler.requestReload();
  }

  /**
   * Adds an entry at run time, or replaces the runtime entry of that name. Running schedulers pick
   * it up at once; slots count from now. Checked as `app.schedule()` checks.
   */
  async add<A extends unknown[]>(name: string, entry: ScheduleEntry<A>): Promise<void> {
    if (this.code.has(name))
      throw invalidEntry(
        name,
        'an entry with this name is defined in code (app.schedule); runtime entries need other names.',
      );
    const resolved = resolveEntry(name, entry, 'runtime', this.storage.check);
    await this.store.putEntry(toStored(resolved, this.storage, this.clock.now()));
  }

  /** Removes a runtime entry (and its last fired slot); false when there was none. */
  async remove(name: string): Promise<boolean> {
    if (this.code.has(name)) throw invalidEntry(name, 'it is defined in code (app.schedule); remove it there.');
    return this.store.removeEntry(name);
  }

  /** Every entry, in code and at run time, with its last and next slot. */
  async list(): Promise<BeatEntryInfo[]> {
    const [stored, lastSlots] = await Promise.all([this.store.listEntries(), this.store.lastSlots()]);
    // An entry this app cannot fire (e.g. a removed task type) is left out; `celeriac beat list` shows the rest.
    const runtime = runtimeEntries(stored, new Set(this.code.keys()), this.storage, () => undefined);
    const now = this.clock.now();
    return [...this.code.values(), ...runtime.sort((a, b) => a.name.localeCompare(b.name))].map((entry) => ({
      name: entry.name,
      task: entry.task,
      schedule: entry.schedule.spec,
      description: entry.schedule.toString(),
      args: entry.args(),
      options: entry.options,
      catchUp: entry.catchUp,
      source: entry.source,
      lastFired: lastSlots.get(entry.name),
      next: entry.schedule.next(now),
    }));
  }

  /** The entries defined in code (`app.schedule`), checked. */
  entriesInCode(): readonly ResolvedEntry[] {
    return [...this.code.values()];
  }

  /** Who leads, if any scheduler does, and for how much longer its lease runs. */
  leader(): Promise<{ owner: string; ttl: number } | undefined> {
    return this.store.leaseHolder();
  }

  /** A scheduler for this app's entries (call `start()` on it). Closing the app closes it. */
  scheduler(options: SchedulerOptions = {}): Scheduler {
    const scheduler = new Scheduler(this.host, this.store, () => this.entriesInCode(), options);
    this.schedulers.add(scheduler);
    return scheduler;
  }

  /** Closes the schedulers, then the store. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.schedulers].map((scheduler) => scheduler.close()));
      await this.storeInstance?.close();
    })();
    return this.closing;
  }
}
