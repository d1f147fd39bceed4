/**
 * The memory broker (`memory://`): the whole Broker contract inside one process, for tests and
 * single-process apps. Every method runs synchronously inside, so each move is atomic.
 */
import type {
  Broker,
  BrokerSettings,
  DeadLetter,
  Delivery,
  FailedTask,
  Failure,
  PublishOutcome,
  PurgedMessage,
  QueueStats,
  RecoveryReport,
  Revocation,
  WorkerInfo,
} from '../broker';
import { collectReplies } from '../control/collect-replies';
import type { BroadcastOptions, ControlHandler, ControlReply, ControlRequest } from '../control/control-types';
import type { RateSetting } from '../flow/message-limits';
import type { Envelope } from '../message';
import { MemoryFailedRegistry } from './memory-failed-registry';
import { MemoryQueue, type Entry, type Place } from './memory-queue';
import { WakeTimer } from './wake-timer';

/** A Broker kept in this process's memory. */
export class MemoryBroker implements Broker {
  private readonly queues = new Map<string, MemoryQueue>();
  private readonly revoked = new Map<string, { revocation: Revocation; until: number }>();
  private readonly revokeListeners = new Set<(revocation: Revocation) => void>();
  private readonly waiters = new Set<{ queues: readonly string[]; wake: () => void }>();
  private readonly timer = new WakeTimer(() => this.wakeDue());
  private readonly workers = new Map<string, { info: WorkerInfo; until: number }>();
  private readonly paused = new Set<string>();
  private readonly controlHandlers = new Set<ControlHandler>();
  private seq = 0;
  private readonly failed: MemoryFailedRegistry;
  /** Rates set at run time, by task name. */
  private readonly rates = new Map<string, RateSetting>();

  constructor(private readonly settings: BrokerSettings) {
    this.failed = new MemoryFailedRegistry(settings.failedTtl ?? 0, settings.failedLimit ?? 10_000);
  }

  async publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    const now = Date.now();
    const outcomes = envelopes.map((envelope): PublishOutcome => {
      const queue = this.queue(envelope.queue);
      if (envelope.idempotent && queue.entries.has(envelope.id)) return 'duplicate';
      const debounced = queue.debounce(envelope, now);
      if (debounced !== undefined) return debounced;
      const holder = queue.claimUnique(envelope, now);
      if (holder !== undefined) return { duplicateOf: holder };
      const delayed = envelope.eta !== undefined && envelope.eta > now;
      const entry: Entry = {
        id: envelope.id,
        queue: envelope.queue,
        priority: envelope.priority,
        body: envelope.body,
        deliveries: 0,
        place: delayed ? 'delayed' : 'ready',
        seq: this.seq++,
        at: delayed ? (envelope.eta as number) : now,
      };
      if (envelope.limits) entry.limits = envelope.limits;
      queue.entries.set(envelope.id, entry);
      return 'published';
    });
    this.afterChange();
    return outcomes;
  }

  async reserve(queues: readonly string[], count: number): Promise<Delivery[]> {
    const now = Date.now();
    this.promoteDue(now);
    const deliveries: Delivery[] = [];
    let held = false;
    for (const name of queues) {
      if (deliveries.length >= count) break;
      if (this.paused.has(name)) continue;
      const state = this.queue(name);
      const ready = [...state.entries.values()]
        .filter((entry) => entry.place === 'ready')
        .sort((a, b) => b.priority - a.priority || a.seq - b.seq);
      for (const entry of ready) {
        if (deliveries.length >= count) break;
        // A task over its limits is held aside; the ones behind it keep flowing.
        const until = entry.limits ? state.gate.admit(entry.id, entry.limits, now) : undefined;
        if (until !== undefined) {
          entry.place = 'delayed';
          entry.at = until;
          held = true;
          continue;
        }
        entry.place = 'active';
        entry.deliveries += 1;
        entry.at = now + this.settings.visibilityTimeout;
        deliveries.push(toDelivery(entry));
        state.leased(entry, now);
      }
    }
    if (held) this.scheduleTimer();
    return deliveries;
  }

  /** Sets the rate of every scope of `task` from now on (undefined: back to the task's own). */
  async setRateLimit(task: string, rate: RateSetting | undefined): Promise<void> {
    if (rate) this.rates.set(task, rate);
    else this.rates.delete(task);
  }

  /** The rates set at run time, by task name. */
  async rateLimits(): Promise<Record<string, RateSetting>> {
    return Object.fromEntries(this.rates);
  }

  waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.hasReady(queues)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        queues,
        wake: () => {
          this.waiters.delete(waiter);
          signal.removeEventListener('abort', waiter.wake);
          resolve();
        },
      };
      this.waiters.add(waiter);
      signal.addEventListener('abort', waiter.wake, { once: true });
      this.scheduleTimer();
    });
  }

  async ack(deliveries: readonly Delivery[], failures?: ReadonlyMap<string, Failure>): Promise<void> {
    for (const delivery of deliveries) {
      const entries = this.queue(delivery.queue).entries;
      const entry = entries.get(delivery.id);
      if (entry?.place !== 'active') continue;
      entries.delete(delivery.id);
      this.releaseSlot(entry);
      this.queue(delivery.queue).gate.unlock(entry.id, entry.limits?.unique);
      const failure = failures?.get(delivery.id);
      if (failure && !this.failed.has(entry.queue, entry.id)) this.keepEntry(entry, failure);
      else if (!failure && delivery.deliveries > 1) this.failed.discard(entry.queue, [entry.id]);
    }
  }

  async keepFailed(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void> {
    for (const delivery of deliveries) {
      const entry = this.activeEntry(delivery);
      const failure = failures.get(delivery.id);
      if (entry?.deliveries === delivery.deliveries && failure) this.keepEntry(entry, failure);
    }
  }

  async listFailed(queue: string, options: { offset?: number; limit?: number } = {}): Promise<FailedTask[]> {
    return this.failed.list(queue, options.offset ?? 0, options.limit ?? 100);
  }

  async countFailed(queue: string): Promise<number> {
    return this.failed.count(queue);
  }

  async getFailed(queue: string, ids: readonly string[]): Promise<Array<FailedTask | undefined>> {
    return this.failed.get(queue, ids);
  }

  async discardFailed(queue: string, ids?: readonly string[]): Promise<number> {
    return this.failed.discard(queue, ids);
  }

  async queueNames(): Promise<string[]> {
    return [...this.queues.keys()];
  }

  async requeue(delivery: Delivery, options: { delay?: number; body?: string } = {}): Promise<void> {
    const entry = this.activeEntry(delivery);
    if (!entry) return;
    const delay = options.delay ?? 0;
    if (options.body !== undefined) entry.body = options.body;
    // A requeue is not a lost delivery: undo the count this delivery added.
    entry.deliveries -= 1;
    this.releaseSlot(entry);
    entry.place = delay > 0 ? 'delayed' : 'ready';
    entry.at = Date.now() + delay;
    entry.seq = this.seq++;
    this.afterChange();
  }

  async requeueLost(delivery: Delivery, reason: string): Promise<'requeued' | 'dead'> {
    const entry = this.activeEntry(delivery);
    if (!entry) return 'requeued';
    if (entry.deliveries >= this.settings.maxDeliveries) {
      this.bury(entry, `${reason} (delivered ${entry.deliveries} times, maxDeliveries ${this.settings.maxDeliveries})`);
      return 'dead';
    }
    this.releaseSlot(entry);
    entry.place = 'ready';
    entry.seq = this.seq++;
    this.afterChange();
    return 'requeued';
  }

  async deadLetter(delivery: Delivery, reason: string): Promise<void> {
    const entry = this.activeEntry(delivery);
    if (entry) this.bury(entry, reason);
  }

  async extendLeases(deliveries: readonly Delivery[]): Promise<void> {
    const deadline = Date.now() + this.settings.visibilityTimeout;
    for (const delivery of deliveries) {
      const entry = this.activeEntry(delivery);
      if (entry) entry.at = deadline;
    }
  }

  async recoverLapsed(queues: readonly string[]): Promise<RecoveryReport> {
    const now = Date.now();
    const requeued: string[] = [];
    const dead: DeadLetter[] = [];
    for (const name of queues) {
      for (const entry of this.queue(name).entries.values()) {
        if (entry.place !== 'active' || entry.at > now) continue;
        if (entry.deliveries >= this.settings.maxDeliveries) {
          dead.push(
            this.bury(
              entry,
              `lease lapsed ${entry.deliveries} times (maxDeliveries ${this.settings.maxDeliveries}); its workers ` +
                `died or hung`,
            ),
          );
        } else {
          this.releaseSlot(entry);
          entry.place = 'ready';
          entry.seq = this.seq++;
          requeued.push(entry.id);
        }
      }
    }
    if (requeued.length > 0) this.afterChange();
    return { requeued, dead };
  }

  async listDead(queue: string, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter[]> {
    const offset = options.offset ?? 0;
    return this.queue(queue).dead.slice(offset, offset + (options.limit ?? 100));
  }

  async requeueDead(queue: string, ids?: readonly string[]): Promise<number> {
    const state = this.queue(queue);
    const moving = state.takeDead(ids);
    for (const dead of moving) state.revive(dead, this.seq++, Date.now());
    this.afterChange();
    return moving.length;
  }

  async discardDead(queue: string, ids?: readonly string[]): Promise<number> {
    return this.queue(queue).takeDead(ids).length;
  }

  async revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    this.revoked.set(revocation.id, { revocation, until: Date.now() + this.settings.revokeTtl });
    for (const listener of this.revokeListeners) listener(revocation);
    for (const state of this.queues.values()) {
      const entry = state.entries.get(revocation.id);
      if (entry && entry.place !== 'active') {
        state.drop(entry);
        return { removed: true, body: entry.body };
      }
    }
    return { removed: false };
  }

  async listRevoked(): Promise<Revocation[]> {
    const now = Date.now();
    const alive: Revocation[] = [];
    for (const [id, { revocation, until }] of this.revoked) {
      if (until <= now) this.revoked.delete(id);
      else alive.push(revocation);
    }
    return alive;
  }

  async onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    this.revokeListeners.add(listener);
    return async () => {
      this.revokeListeners.delete(listener);
    };
  }

  async heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    this.workers.set(info.hostname, { info, until: Date.now() + ttl });
  }

  async forgetWorker(hostname: string): Promise<void> {
    this.workers.delete(hostname);
  }

  async listWorkers(): Promise<WorkerInfo[]> {
    const now = Date.now();
    return [...this.workers.values()].filter((worker) => worker.until > now).map((worker) => worker.info);
  }

  async stats(queue: string): Promise<QueueStats> {
    const state = this.queue(queue);
    const count = (place: Place) => [...state.entries.values()].filter((entry) => entry.place === place).length;
    return { ready: count('ready'), delayed: count('delayed'), active: count('active'), dead: state.dead.length };
  }

  async purge(queue: string): Promise<PurgedMessage[]> {
    const state = this.queue(queue);
    const removed: PurgedMessage[] = [];
    for (const [id, entry] of state.entries) {
      if (entry.place === 'active') continue;
      state.drop(entry);
      removed.push({ id, body: entry.body });
    }
    return removed;
  }

  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    return collectReplies(
      [...this.controlHandlers].map((handler) => handler(request)),
      options,
    );
  }

  async onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    this.controlHandlers.add(handler);
    return async () => void this.controlHandlers.delete(handler);
  }

  async pauseQueue(queue: string): Promise<void> {
    this.paused.add(queue);
  }

  async resumeQueue(queue: string): Promise<void> {
    this.paused.delete(queue);
    this.afterChange();
  }

  async pausedQueues(queues: readonly string[]): Promise<string[]> {
    return queues.filter((queue) => this.paused.has(queue));
  }

  async listQueues(): Promise<string[]> {
    return [...this.queues.keys()];
  }

  async close(): Promise<void> {
    this.timer.cancel();
    this.controlHandlers.clear();
    for (const waiter of [...this.waiters]) waiter.wake();
    this.revokeListeners.clear();
  }

  private queue(name: string): MemoryQueue {
    let state = this.queues.get(name);
    if (!state) {
      state = new MemoryQueue(this.rates);
      this.queues.set(name, state);
    }
    return state;
  }

  private activeEntry(delivery: Delivery): Entry | undefined {
    const entry = this.queue(delivery.queue).entries.get(delivery.id);
    return entry?.place === 'active' ? entry : undefined;
  }

  /** Keeps a leased entry that failed for good in the failed-task registry. */
  private keepEntry(entry: Entry, failure: Failure): void {
    this.failed.add({ ...failure, id: entry.id, queue: entry.queue, body: entry.body, at: Date.now() });
  }

  /** Frees the concurrency slot a leased entry held and makes the oldest task held for it ready. */
  private releaseSlot(entry: Entry): void {
    const held = this.queue(entry.queue).freeSlot(entry);
    if (!held) return;
    held.place = 'ready';
    held.seq = this.seq++;
    this.afterChange();
  }

  private bury(entry: Entry, reason: string): DeadLetter {
    this.releaseSlot(entry);
    return this.queue(entry.queue).bury(entry, reason, Date.now());
  }

  private promoteDue(now: number): void {
    for (const state of this.queues.values()) {
      for (const entry of state.entries.values()) {
        if (entry.place === 'delayed' && entry.at <= now) {
          entry.place = 'ready';
          entry.seq = this.seq++;
        }
      }
    }
  }

  private hasReady(queues: readonly string[]): boolean {
    this.promoteDue(Date.now());
    return queues.some(
      (name) =>
        !this.paused.has(name) && [...this.queue(name).entries.values()].some((entry) => entry.place === 'ready'),
    );
  }

  private afterChange(): void {
    this.wakeDue();
  }

  private wakeDue(): void {
    for (const waiter of [...this.waiters]) if (this.hasReady(waiter.queues)) waiter.wake();
    this.scheduleTimer();
  }

  /** Arms one timer for the earliest delayed message, so sleeping waiters wake exactly when it is due. */
  private scheduleTimer(): void {
    if (this.waiters.size === 0) return this.timer.cancel();
    let next = Infinity;
    for (const state of this.queues.values()) {
      for (const entry of state.entries.values()) if (entry.place === 'delayed' && entry.at < next) next = entry.at;
    }
    if (next === Infinity) this.timer.cancel();
    else this.timer.at(next);
  }
}

function toDelivery(entry: Entry): Delivery {
  return { id: entry.id, queue: entry.queue, body: entry.body, deliveries: entry.deliveries };
}
