/**
 * A beat fixture on a fake clock: a memory app, a memory store whose lease expires on the same
 * clock, and helpers to run schedulers (also ones that die or are cut off mid-firing) and move
 * time. Fresh for each test, closed after it.
 */
import { runtimeOf } from '@celeriac/core/internal';
import { AsyncResult, CeleriacCore, MemoryBeatStore, type BeatStore } from '@celeriac/core';
import {
  Beat,
  ManualClock,
  Scheduler,
  type BeatHost,
  type BeatLogger,
  type FiredSlot,
  type SchedulerOptions,
} from '@celeriac/beat';

/** A scheduler that breaks at one send, for hand-over tests. */
export interface FragileScheduler {
  readonly scheduler: Scheduler;
  /** While on, its store calls and sends fail (it is cut off from Redis, or its process is gone). */
  readonly cut: { on: boolean };
  /** The task ids whose sends the broker accepted from it. */
  readonly published: string[];
  /** Resolves once it broke. */
  readonly broken: Promise<void>;
}

/** Where a fragile scheduler breaks. */
export interface FragileOptions extends SchedulerOptions {
  /**
   * The task id at whose send (its slot claimed, the broker not reached yet) the scheduler is cut
   * off from Redis: that send and every call after it fail until `cut.on` is set back.
   */
  breakAt: string;
  /** The process dies there instead: that send never returns (until the test ends), nothing more is sent. */
  dies?: boolean;
}

/** A logger that drops everything (fragile schedulers log their failures). */
export const silent: BeatLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** A view of `store` whose calls all fail while `cut.on`. */
export function cutOff(store: BeatStore, cut: { on: boolean }): BeatStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        cut.on
          ? Promise.reject(new Error('connection lost'))
          : (value as (...params: unknown[]) => unknown).apply(target, args);
    },
  });
}

/** What a fake-clock test works with. */
export interface FakeBeat {
  readonly schedulers: Scheduler[];
  readonly clock: ManualClock;
  readonly store: MemoryBeatStore;
  readonly app: CeleriacCore;
  readonly beat: Beat;
  /** Every slot fired by any scheduler of the test, in order. */
  readonly fired: FiredSlot[];
  /** Every slot sent again by a scheduler that took over, in order. */
  readonly resent: FiredSlot[];
  /** A started scheduler (lease 3 s unless given), on `store` unless another is given. */
  start(options?: SchedulerOptions & { store?: BeatStore }): Promise<Scheduler>;
  /** A started scheduler (lease 3 s unless given) that breaks at one send: see {@link FragileOptions}. */
  startFragile(options: FragileOptions): Promise<FragileScheduler>;
  /**
   * Acts as a worker: takes every waiting task of the queue, stores a SUCCESS record of it and acks it; returns their
   * ids.
   */
  runQueued(queue?: string): Promise<string[]>;
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
  let teardown: (() => void) | undefined;
  beforeEach(() => {
    const clock = new ManualClock(Date.parse(start));
    const store = new MemoryBeatStore({ now: () => clock.now() });
    const app = new CeleriacCore({ broker: 'memory://' });
    app.task('tick', (..._args: unknown[]) => undefined);
    const beat = new Beat(app, () => store, { clock });
    const schedulers: Scheduler[] = [];
    const fired: FiredSlot[] = [];
    const resent: FiredSlot[] = [];
    const queued: Record<string, string[]> = {};
    /** Settles a scheduler: what it does is done, or it hangs in a send that never returns. */
    const settlers = new Map<Scheduler, () => Promise<void>>();
    const settle = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(schedulers.map((scheduler) => (settlers.get(scheduler) ?? (() => scheduler.idle()))()));
    };
    const hung: Array<() => void> = [];
    teardown = () => {
      for (const end of hung) end();
    };
    const started = async (scheduler: Scheduler): Promise<Scheduler> => {
      scheduler.on('fired', (slot) => fired.push(slot));
      scheduler.on('resent', (slot) => resent.push(slot));
      schedulers.push(scheduler);
      await scheduler.start();
      await settle();
      return scheduler;
    };
    current = {
      schedulers,
      clock,
      store,
      app,
      beat,
      fired,
      resent,
      async start(options = {}) {
        const { store: own, ...rest } = options;
        return started(
          new Scheduler(runtimeOf(app), own ?? store, () => beat.entriesInCode(), { lease: 3_000, clock, ...rest }),
        );
      },
      async startFragile({ breakAt, dies = false, ...options }) {
        const cut = { on: false };
        const published: string[] = [];
        let broke!: () => void;
        let hasBroken = false;
        const broken = new Promise<void>((resolve) => (broke = resolve));
        const host: BeatHost = {
          codec: runtimeOf(app).codec,
          options: app.options,
          buildMessage: (name, args, call) => runtimeOf(app).buildMessage(name, args, call),
          result: (id) => app.result(id),
          track: (closeable) => runtimeOf(app).track(closeable),
          sendTask(name, args, call) {
            const id = String(call?.taskId);
            const breaking = id === breakAt && !hasBroken;
            if (breaking) {
              hasBroken = true;
              cut.on = true;
              broke();
            }
            if (breaking && dies) {
              const never = new Promise<void>((_, reject) => hung.push(() => reject(new Error('the process died'))));
              return new AsyncResult(runtimeOf(app), id, { sent: never, taskName: name });
            }
            if (cut.on)
              return new AsyncResult(runtimeOf(app), id, {
                sent: Promise.reject(new Error('connection lost')),
                taskName: name,
              });
            const result = app.sendTask(name, args, call);
            void result.sent.then(() => published.push(id));
            return result;
          },
        };
        const scheduler = new Scheduler(host, cutOff(store, cut), () => beat.entriesInCode(), {
          lease: 3_000,
          clock,
          logger: silent,
          ...options,
        });
        if (dies) settlers.set(scheduler, () => Promise.race([scheduler.idle(), broken]));
        await started(scheduler);
        return { scheduler, cut, published, broken };
      },
      async runQueued(queue = 'default') {
        const deliveries = await app.broker.reserve([queue], 10_000);
        await app.backend.store(
          deliveries.map((delivery) => ({
            record: { id: delivery.id, state: 'SUCCESS', task: 'tick', date: clock.now() },
            ttl: 86_400_000,
          })),
        );
        await app.broker.ack(deliveries);
        return deliveries.map((delivery) => delivery.id).sort();
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
    teardown?.();
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
export const times = (slots: ReadonlyArray<{ slot: number }>): string[] =>
  slots.map((fired) => new Date(fired.slot).toISOString().slice(11, 19));
