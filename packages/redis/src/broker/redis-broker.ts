/**
 * The Redis broker: a reliable queue where a reserved message waits in a leased `active` set until it
 * is acked, a lapsed lease brings it back (counted, then dead-lettered), delayed messages wait in a
 * sorted set by due time, and idle workers block on a wake-up marker instead of polling.
 * Every multi-key step is one Lua script (see `scripts/`); each part of the contract lives in a module of
 * its own beside this one (publish, reserve, ack, leases, ...).
 */
import type {
  BroadcastOptions,
  Broker,
  BrokerCapabilities,
  BrokerSettings,
  ControlHandler,
  ControlReply,
  ControlRequest,
  DeadLetter,
  Delivery,
  Envelope,
  FailedTask,
  Failure,
  PublishOutcome,
  PurgedMessage,
  QueueStats,
  RateSetting,
  RecoveryReport,
  Revocation,
  WorkerInfo,
} from '@celeriac/core';
import { ackDeliveries } from './ack';
import { groupByQueue, type BrokerContext } from './broker-context';
import { deadLetter, discardDead, listDead, requeueDead } from './dead-letters';
import { IdleHint } from './idle-hint';
import { extendLeases, recoverLapsed } from './leases';
import { Publisher } from './publish';
import { purgeQueue, queueNames, queueStats } from './queue-contents';
import { requeue, requeueLost } from './requeue';
import { reserveFrom } from './reserve';
import { listRevoked, onRevoke, revoke } from './revocations';
import { WorkWaiter } from './wait-for-work';
import { forgetWorker, listWorkers, writeHeartbeat } from './worker-registry';
import type { RedisConnection } from '../connection/connection';
import { RedisFailedRegistry } from './failed-registry';
import { KeySpace } from '../keys';
import { REDIS_BROKER_CAPABILITIES } from '../capabilities';
import { RedisControl } from '../control/redis-control';
import { listRateLimits, setRateLimit } from './redis-rate-limits';
import { orUnavailable } from '../connection/unavailable';

/** A Broker on Redis. */
export class RedisBroker implements Broker {
  readonly capabilities: BrokerCapabilities = REDIS_BROKER_CAPABILITIES;
  private readonly context: BrokerContext;
  private readonly control: RedisControl;
  private readonly publisher: Publisher;
  /** What the last reservation that emptied its queues learned, to size the next wait. */
  private readonly idleHint = new IdleHint();
  private readonly waiter: WorkWaiter;
  private closed = false;

  constructor(
    private readonly connection: RedisConnection,
    settings: BrokerSettings,
  ) {
    const keys = new KeySpace(settings.prefix);
    this.control = new RedisControl(connection, keys);
    const failed = new RedisFailedRegistry(connection.client, keys, settings);
    this.context = { connection, keys, settings, failed, isClosed: () => this.closed };
    this.publisher = new Publisher(this.context);
    this.waiter = new WorkWaiter(this.context, this.idleHint);
    connection.retain();
  }

  publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    return this.publisher.publish(envelopes);
  }

  reserve(queues: readonly string[], count: number): Promise<Delivery[]> {
    return reserveFrom(this.context, this.idleHint, { queues, count });
  }

  drained(queues: readonly string[]): boolean {
    return this.idleHint.drained(queues);
  }

  async waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void> {
    await this.waiter.wait(queues, 0, signal);
  }

  waitAndReserve(queues: readonly string[], count: number, signal: AbortSignal): Promise<Delivery[]> {
    return this.waiter.wait(queues, count, signal);
  }

  ack(deliveries: readonly Delivery[], failures?: ReadonlyMap<string, Failure>): Promise<void> {
    return ackDeliveries(this.context, deliveries, failures);
  }

  async keepFailed(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void> {
    const { failed } = this.context;
    await Promise.all([...groupByQueue(deliveries)].map(([queue, items]) => failed.keep(queue, items, failures)));
  }

  listFailed(queue: string, options: { offset?: number; limit?: number } = {}): Promise<FailedTask[]> {
    return this.wrap(`list the failed tasks of ${queue}`, () =>
      this.context.failed.list(queue, options.offset ?? 0, options.limit ?? 100),
    );
  }

  getFailed(queue: string, ids: readonly string[]): Promise<Array<FailedTask | undefined>> {
    return this.wrap(`read failed tasks of ${queue}`, () => this.context.failed.get(queue, ids));
  }

  countFailed(queue: string): Promise<number> {
    return this.wrap(`count the failed tasks of ${queue}`, () => this.context.failed.count(queue));
  }

  discardFailed(queue: string, ids?: readonly string[]): Promise<number> {
    return this.wrap(`discard failed tasks of ${queue}`, () => this.context.failed.discard(queue, ids));
  }

  queueNames(): Promise<string[]> {
    return this.wrap('list the queues', () => queueNames(this.context));
  }

  requeue(delivery: Delivery, options: { delay?: number; body?: string } = {}): Promise<void> {
    return requeue(this.context, delivery, options);
  }

  requeueLost(delivery: Delivery, reason: string): Promise<'requeued' | 'dead'> {
    return requeueLost(this.context, delivery, reason);
  }

  deadLetter(delivery: Delivery, reason: string): Promise<void> {
    return deadLetter(this.context, delivery, reason);
  }

  extendLeases(deliveries: readonly Delivery[]): Promise<void> {
    return extendLeases(this.context, deliveries);
  }

  recoverLapsed(queues: readonly string[]): Promise<RecoveryReport> {
    return recoverLapsed(this.context, queues);
  }

  listDead(queue: string, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.wrap(`list the dead letters of ${queue}`, () => listDead(this.context, queue, options));
  }

  requeueDead(queue: string, ids?: readonly string[]): Promise<number> {
    return this.wrap(`requeue dead letters of ${queue}`, () => requeueDead(this.context, queue, ids));
  }

  discardDead(queue: string, ids?: readonly string[]): Promise<number> {
    return this.wrap(`discard dead letters of ${queue}`, () => discardDead(this.context, queue, ids));
  }

  revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    return this.wrap(`revoke task ${revocation.id}`, () => revoke(this.context, revocation));
  }

  listRevoked(): Promise<Revocation[]> {
    return this.wrap('read the revoked tasks', () => listRevoked(this.context));
  }

  onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    return onRevoke(this.context, listener);
  }

  heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    return writeHeartbeat(this.context, info, ttl);
  }

  forgetWorker(hostname: string): Promise<void> {
    return forgetWorker(this.context, hostname);
  }

  listWorkers(): Promise<WorkerInfo[]> {
    return this.wrap('list the workers', () => listWorkers(this.context));
  }

  stats(queue: string): Promise<QueueStats> {
    return this.wrap(`count the tasks of ${queue}`, () => queueStats(this.context, queue));
  }

  purge(queue: string): Promise<PurgedMessage[]> {
    return this.wrap(`purge ${queue}`, () => purgeQueue(this.context, queue));
  }

  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    return this.control.broadcast(request, options);
  }

  onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    return this.control.onControl(handler);
  }

  pauseQueue(queue: string): Promise<void> {
    return this.control.pauseQueue(queue);
  }

  resumeQueue(queue: string): Promise<void> {
    return this.control.resumeQueue(queue);
  }

  pausedQueues(queues: readonly string[]): Promise<string[]> {
    return this.control.pausedQueues(queues);
  }

  listQueues(): Promise<string[]> {
    return this.control.listQueues();
  }

  setRateLimit(task: string, rate: RateSetting | undefined): Promise<void> {
    return this.wrap(`set the rate limit of ${task}`, () =>
      setRateLimit(this.connection.client, this.context.keys, task, rate),
    );
  }

  rateLimits(): Promise<Record<string, RateSetting>> {
    return this.wrap('read the rate limits', () => listRateLimits(this.connection.client, this.context.keys));
  }

  unreachable(): string | undefined {
    return this.connection.lastError?.message;
  }

  reconnect(): void {
    this.connection.reconnectWaits();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }

  /** Runs an operator's call (list, count, change), turning a lost connection into BrokerUnavailableError. */
  private wrap<T>(action: string, call: () => Promise<T>): Promise<T> {
    return orUnavailable(action, this.connection, call);
  }
}
