/**
 * The memory broker (`memory://`): the whole Broker contract inside one process, for tests and
 * single-process apps. Every method runs synchronously inside, so each move is atomic. This
 * class publishes, reserves and acks; the queues, leases, waits, revocations, worker records and
 * control handlers each live in a module of their own.
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
import type { BroadcastOptions, ControlHandler, ControlReply, ControlRequest } from '../control/control-types';
import type { RateSetting } from '../flow/message-limits';
import type { Envelope } from '../message';
import type { BrokerCapabilities } from '../capabilities';
import { MEMORY_BROKER_CAPABILITIES } from './memory-capabilities';
import { MemoryControl } from './memory-control';
import { MemoryFailedRegistry } from './memory-failed-registry';
import { MemoryLeases } from './memory-leases';
import type { Entry, Place } from './memory-queue';
import { MemoryQueues } from './memory-queues';
import { MemoryRevocations } from './memory-revocations';
import { MemoryWakeUps } from './memory-wake-ups';
import { MemoryWorkerRegistry } from './memory-worker-registry';

/** A Broker kept in this process's memory. */
export class MemoryBroker implements Broker {
  readonly capabilities: BrokerCapabilities = MEMORY_BROKER_CAPABILITIES;
  private readonly queues = new MemoryQueues(() => this.wakeUps.wakeDue());
  private readonly wakeUps = new MemoryWakeUps(this.queues);
  private readonly leases: MemoryLeases;
  private readonly revocations: MemoryRevocations;
  private readonly workers = new MemoryWorkerRegistry();
  private readonly control = new MemoryControl();
  private readonly failed: MemoryFailedRegistry;

  constructor(private readonly settings: BrokerSettings) {
    this.failed = new MemoryFailedRegistry(settings.failedTtl ?? 0, settings.failedLimit ?? 10_000);
    this.revocations = new MemoryRevocations(settings.revokeTtl);
    this.leases = new MemoryLeases(settings, this.queues);
  }

  async publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    const now = Date.now();
    const outcomes = envelopes.map((envelope): PublishOutcome => {
      const queue = this.queues.get(envelope.queue);
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
        seq: this.queues.nextSeq(),
        at: delayed ? (envelope.eta as number) : now,
      };
      if (envelope.limits) entry.limits = envelope.limits;
      queue.entries.set(envelope.id, entry);
      return 'published';
    });
    this.wakeUps.wakeDue();
    return outcomes;
  }

  async reserve(queues: readonly string[], count: number): Promise<Delivery[]> {
    const now = Date.now();
    this.queues.promoteDue(now);
    const deliveries: Delivery[] = [];
    let held = false;
    for (const name of queues) {
      if (deliveries.length >= count) break;
      if (this.queues.paused.has(name)) continue;
      const state = this.queues.get(name);
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
    if (held) this.wakeUps.schedule();
    return deliveries;
  }

  /** Sets the rate of every scope of `task` from now on (undefined: back to the task's own). */
  async setRateLimit(task: string, rate: RateSetting | undefined): Promise<void> {
    if (rate) this.queues.rates.set(task, rate);
    else this.queues.rates.delete(task);
  }

  /** The rates set at run time, by task name. */
  async rateLimits(): Promise<Record<string, RateSetting>> {
    return Object.fromEntries(this.queues.rates);
  }

  waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void> {
    return this.wakeUps.wait(queues, signal);
  }

  async ack(deliveries: readonly Delivery[], failures?: ReadonlyMap<string, Failure>): Promise<void> {
    for (const delivery of deliveries) {
      const entries = this.queues.get(delivery.queue).entries;
      const entry = entries.get(delivery.id);
      if (entry?.place !== 'active') continue;
      entries.delete(delivery.id);
      this.queues.releaseSlot(entry);
      this.queues.get(delivery.queue).gate.unlock(entry.id, entry.limits?.unique);
      const failure = failures?.get(delivery.id);
      if (failure && !this.failed.has(entry.queue, entry.id)) this.keepEntry(entry, failure);
      else if (!failure && delivery.deliveries > 1) this.failed.discard(entry.queue, [entry.id]);
    }
  }

  async keepFailed(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void> {
    for (const delivery of deliveries) {
      const entry = this.queues.activeEntry(delivery);
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
    return this.queues.names();
  }

  async requeue(delivery: Delivery, options: { delay?: number; body?: string } = {}): Promise<void> {
    this.leases.requeue(delivery, options);
  }

  async requeueLost(delivery: Delivery, reason: string): Promise<'requeued' | 'dead'> {
    return this.leases.requeueLost(delivery, reason);
  }

  async deadLetter(delivery: Delivery, reason: string): Promise<void> {
    this.leases.deadLetter(delivery, reason);
  }

  async extendLeases(deliveries: readonly Delivery[]): Promise<void> {
    this.leases.extend(deliveries);
  }

  async recoverLapsed(queues: readonly string[]): Promise<RecoveryReport> {
    return this.leases.recoverLapsed(queues);
  }

  async listDead(queue: string, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter[]> {
    const offset = options.offset ?? 0;
    return this.queues.get(queue).dead.slice(offset, offset + (options.limit ?? 100));
  }

  async requeueDead(queue: string, ids?: readonly string[]): Promise<number> {
    const state = this.queues.get(queue);
    const moving = state.takeDead(ids);
    for (const dead of moving) state.revive(dead, this.queues.nextSeq(), Date.now());
    this.wakeUps.wakeDue();
    return moving.length;
  }

  async discardDead(queue: string, ids?: readonly string[]): Promise<number> {
    return this.queues.get(queue).takeDead(ids).length;
  }

  async revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    this.revocations.add(revocation);
    for (const state of this.queues.all()) {
      const entry = state.entries.get(revocation.id);
      if (entry && entry.place !== 'active') {
        state.drop(entry);
        return { removed: true, body: entry.body };
      }
    }
    return { removed: false };
  }

  async listRevoked(): Promise<Revocation[]> {
    return this.revocations.list();
  }

  async onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    return this.revocations.listen(listener);
  }

  async heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    this.workers.heartbeat(info, ttl);
  }

  async forgetWorker(hostname: string): Promise<void> {
    this.workers.forget(hostname);
  }

  async listWorkers(): Promise<WorkerInfo[]> {
    return this.workers.list();
  }

  async stats(queue: string): Promise<QueueStats> {
    const state = this.queues.get(queue);
    const count = (place: Place) => [...state.entries.values()].filter((entry) => entry.place === place).length;
    return { ready: count('ready'), delayed: count('delayed'), active: count('active'), dead: state.dead.length };
  }

  async purge(queue: string): Promise<PurgedMessage[]> {
    const state = this.queues.get(queue);
    const removed: PurgedMessage[] = [];
    for (const [id, entry] of state.entries) {
      if (entry.place === 'active') continue;
      state.drop(entry);
      removed.push({ id, body: entry.body });
    }
    return removed;
  }

  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    return this.control.broadcast(request, options);
  }

  async onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    return this.control.listen(handler);
  }

  async pauseQueue(queue: string): Promise<void> {
    this.queues.paused.add(queue);
  }

  async resumeQueue(queue: string): Promise<void> {
    this.queues.paused.delete(queue);
    this.wakeUps.wakeDue();
  }

  async pausedQueues(queues: readonly string[]): Promise<string[]> {
    return queues.filter((queue) => this.queues.paused.has(queue));
  }

  async listQueues(): Promise<string[]> {
    return this.queues.names();
  }

  async close(): Promise<void> {
    this.control.close();
    this.wakeUps.close();
    this.revocations.close();
  }

  /** Keeps a leased entry that failed for good in the failed-task registry. */
  private keepEntry(entry: Entry, failure: Failure): void {
    this.failed.add({ ...failure, id: entry.id, queue: entry.queue, body: entry.body, at: Date.now() });
  }
}

function toDelivery(entry: Entry): Delivery {
  return { id: entry.id, queue: entry.queue, body: entry.body, deliveries: entry.deliveries };
}
