/**
 * A beat fixture on a fake clock: a memory app, a memory store whose lease expires on the same
 * clock, and helpers to run schedulers and move time. Fresh for each test, closed after it.
 */
import { CeleriacCore, MemoryBeatStore, type BeatStore } from '@celeriac/core';
import { Beat, ManualClock, Scheduler, type FiredSlot, type SchedulerOptions } from '@celeriac/beat';

/** What a fake-clock test works with. */
export interface FakeBeat {
  readonly schedulers: Scheduler[];
  readonly clock: ManualClock;
  readonly store: MemoryBeatStore;
  readonly app: CeleriacCore;
  readonly beat: Beat;
  /** Every slot fired by any scheduler of the test, in order. */
  readonly fired: FiredSlot[];
  /** A started scheduler (lease 3 s unless given), on `store` unless another is given. */
  start(options?: SchedulerOptions & { store?: BeatStore }): Promise<Scheduler>;
  /** Moves the clock, letting every scheduler finish what each timer started. */
  advance(ms: number): Promise<void>;
  /** Moves the clock to a time. */
  advanceTo(time: string | number): Promise<void>;
  /** The ids of the tasks waiting in the broker, sorted. */
  queuedIds(queue?: string): Promise<string[]>;
}

/** Declares the fixture's hooks in the calling `describe`; read it inside tests. */
export function useFakeBeat(start = '2024-05-01T10:00:30Z'): () => FakeBeat {
  let current: FakeBeat | undefined;
  beforeEach(() => {
    const clock = new ManualClock(Date.parse(start));
    const store = new MemoryBeatStore({ now: () => clock.now() });
    const app = new CeleriacCore({ broker: 'memory://' });
    app.task('tick', (..._args: unknown[]) => undefined);
    const beat = new Beat(app, () => store, { clock });
    const schedulers: Scheduler[] = [];
    const fired: FiredSlot[] = [];
    const queued: Record<string, string[]> = {};
    const settle = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(schedulers.map((scheduler) => scheduler.idle()));
    };
    current = {
      schedulers,
      clock,
      store,
      app,
      beat,
      fired,
      async start(options = {}) {
        const { store: own, ...rest } = options;
        const scheduler = new Scheduler(app, own ?? store, () => beat.entriesInCode(), { lease: 3_000, clock, ...rest });
        scheduler.on('fired', (slot) => fired.push(slot));
        schedulers.push(scheduler);
        await scheduler.start();
        await settle();
        return scheduler;
      },
      advance: (ms) => clock.advance(ms, settle),
      advanceTo: (time) => clock.advanceTo(typeof time === 'string' ? Date.parse(time) : time, settle),
      async queuedIds(queue = 'default') {
        const seen = (queued[queue] ??= []);
        seen.push(...(await app.broker.reserve([queue], 10_000)).map((delivery) => delivery.id));
        return [...seen].sort();
      },
    };
  });
  afterEach(async () => {
    await Promise.all(current?.schedulers.map((scheduler) => scheduler.close()) ?? []);
    await current?.app.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('useFakeBeat: read the fixture inside a test');
    return current;
  };
}

/** Epoch ms of an ISO time. */
export const t = (text: string): number => Date.parse(text);

/** The slots' times of day (UTC, `hh:mm:ss`), for short expectations. */
export const times = (slots: ReadonlyArray<{ slot: number }>): string[] => slots.map((fired) => new Date(fired.slot).toISOString().slice(11, 19));
