/**
 * The worker's slots: the deliveries it holds (leased until settled), which of them occupy a slot (at
 * most the slot count), which of those run now, which wait in prefetch, and which wait for a slot
 * again after their dependencies. Tasks coming back from their dependencies start before prefetched
 * ones. A pool child may hold a job queued behind the one it runs: it takes a slot but is not
 * running until the child says it began it, so `inspect active`, heartbeats and metrics count it as
 * reserved (held for a slot) until then.
 */
import type { Delivery, HeldTask } from '@celeriac/core';
import type { HeldDelivery } from './delivery/ending';
import type { DeliveryReading } from './delivery/stages/read';
import { RunSignal } from './run-signal';
import { argsPreview } from './worker-control';

/** A delivery the worker holds, from its reservation until it is settled. */
export interface HeldRun extends HeldDelivery {
  done: Promise<void>;
  /** Set once it was handed back to the queue (at shutdown). */
  handedBack?: true;
  /** Epoch ms when its task function began (for a pool: when the child said so). */
  started?: number;
  /** The pool child whose task function runs it, once the child said it began it. */
  childPid?: number;
}

/** What the slots ask of their worker. */
export interface SlotsOwner {
  /** How many tasks may run at once now. */
  slots(): number;
  /** Whether tasks may start (the worker is running, not closing). */
  canStart(): boolean;
  /** Runs a held delivery in the slot just taken for it; sets its `done`. */
  run(held: HeldRun): void;
  /** Called after tasks were taken in, started or ended (the autoscaler looks at the demand). */
  changed?(): void;
}

/** The held deliveries of one worker and the slots they run in. */
export class WorkerSlots {
  /** Deliveries held (leased) until settled; their leases are renewed. */
  readonly held = new Map<string, HeldRun>();
  /** Ids given a slot (their runner has them): these occupy the slots. */
  readonly executing = new Set<string>();
  /** Ids of `executing` whose task function began: what runs now (a pool child may queue the others). */
  private readonly running = new Set<string>();
  /** Reserved but not started yet, in reservation order. */
  private prefetched: HeldRun[] = [];
  /** Tasks waiting for a slot again after their dependencies finished. */
  private readonly resuming: Array<{ id: string; resume: () => void }> = [];
  private slotFreed: (() => void) | undefined;

  constructor(private readonly owner: SlotsOwner) {}

  /** How many more deliveries to reserve: free slots plus up to `prefetch` waiting here. */
  room(prefetch: number): number {
    return this.owner.slots() + prefetch - this.executing.size - this.prefetched.length;
  }

  /** Resolves once a slot frees (or `wakeFetch` is called). */
  untilFreed(): Promise<void> {
    return new Promise<void>((resolve) => (this.slotFreed = resolve));
  }

  /** Ends an `untilFreed` wait now. */
  wakeFetch(): void {
    const wake = this.slotFreed;
    this.slotFreed = undefined;
    wake?.();
  }

  /** Holds a reserved delivery (its lease is renewed from now on) until a slot runs it. */
  hold(delivery: Delivery, reading: DeliveryReading): void {
    const entry: HeldRun = { delivery, reading, stop: new RunSignal(), done: Promise.resolve() };
    this.held.set(delivery.id, entry);
    this.prefetched.push(entry);
  }

  /** Starts prefetched tasks while slots are free; tasks whose dependencies came through go first. */
  pump(): void {
    while (this.executing.size < this.owner.slots() && this.resuming.length > 0 && this.owner.canStart()) {
      const next = this.resuming.shift() as { id: string; resume: () => void };
      this.executing.add(next.id);
      next.resume();
    }
    while (this.executing.size < this.owner.slots() && this.prefetched.length > 0 && this.owner.canStart()) {
      const entry = this.prefetched.shift() as HeldRun;
      this.executing.add(entry.delivery.id);
      this.owner.run(entry);
    }
    this.owner.changed?.();
  }

  /** Tasks that want a slot now: running, prefetched, or back from their dependencies. */
  demand(): number {
    return this.executing.size + this.prefetched.length + this.resuming.length;
  }

  /** Gives a slot back to a task that released it to wait for its dependencies. */
  acquire(id: string, stop: RunSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiting = { id, resume: resolve };
      this.resuming.push(waiting);
      // Shutdown hands waiting tasks back to the queue: let them return without a slot.
      stop.onAbort(() => {
        const index = this.resuming.indexOf(waiting);
        if (index >= 0) this.resuming.splice(index, 1);
        resolve();
      });
      this.pump();
    });
  }

  /** Task `id` began running (in this process, or in pool child `childPid`). */
  began(id: string, childPid: number | undefined): void {
    const entry = this.held.get(id);
    if (!entry || !this.executing.has(id)) return;
    this.running.add(id);
    entry.started ??= Date.now();
    if (childPid !== undefined) entry.childPid = childPid;
  }

  /** How many tasks run now: the busy slots (heartbeats, metrics). */
  busy(): number {
    return this.running.size;
  }

  /** Frees the slot of task `id` (its function is done, or it waits for its dependencies). */
  release(id: string): void {
    this.running.delete(id);
    if (!this.executing.delete(id)) return;
    this.pump();
    this.wakeFetch();
  }

  /** Takes the prefetched deliveries out (the worker is closing): they will not start here. */
  takePrefetched(): HeldRun[] {
    const unstarted = this.prefetched;
    this.prefetched = [];
    for (const entry of unstarted) this.held.delete(entry.delivery.id);
    return unstarted;
  }

  /** The tasks running now, as `inspect active` shows them. */
  active(): HeldTask[] {
    return heldTasks([...this.held.values()].filter((entry) => this.running.has(entry.delivery.id)));
  }

  /** The tasks held but not running (prefetched, or queued in a pool child), as `inspect reserved` shows them. */
  reserved(): HeldTask[] {
    return heldTasks([...this.held.values()].filter((entry) => !this.running.has(entry.delivery.id)));
  }
}

function heldTasks(entries: Iterable<HeldRun>): HeldTask[] {
  return [...entries].map(({ delivery, reading, started: at, childPid }) => {
    const message = reading.kind === 'message' ? reading.message : undefined;
    return {
      id: delivery.id,
      name: message?.task ?? '?',
      queue: delivery.queue,
      args: argsPreview(message?.args),
      deliveries: delivery.deliveries,
      ...(at === undefined ? {} : { started: at }),
      ...(childPid === undefined ? {} : { childPid }),
    };
  });
}
