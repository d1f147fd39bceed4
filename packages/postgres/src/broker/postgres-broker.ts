/**
 * The PostgreSQL broker: the {@link Broker} contract on one schema. Each method is one statement
 * (see the modules of this folder); waits LISTEN on one session per process and set a timer to the
 * next due time, so an idle worker sends nothing.
 */
import type {
  BroadcastOptions,
  Broker,
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
  TransactionClient,
  WorkerInfo,
} from '@celeriac/core';
import { orUnreachable } from '../backend/unreachable';
import type { PostgresConnection } from '../connection/postgres-connection';
import { ack, keepFailed } from './ack';
import { brokerContext, type BrokerContext } from './broker-context';
import { POSTGRES_BROKER_CAPABILITIES } from './capabilities';
import { PostgresControl } from './control';
import { discardDead, listDead, requeueDead } from './dead-letters';
import { countFailed, discardFailed, getFailed, listFailed, queueNames } from './failed-registry';
import { extendLeases, recoverLapsed } from './leases';
import { ChurnVacuum } from '../connection/churn-vacuum';
import { publish } from './publish';
import { purge, stats } from './queue-contents';
import { rateLimits, setRateLimit } from './rate-limits';
import { deadLetter, requeue, requeueLost } from './requeue';
import { reserve } from './reserve';
import { listRevoked, onRevoke, revoke } from './revocations';
import { WorkWaits } from './wait-for-work';
import { forgetWorker, heartbeat, listWorkers } from './worker-records';

/** The Broker on PostgreSQL. */
export class PostgresBroker implements Broker {
  readonly capabilities = POSTGRES_BROKER_CAPABILITIES;
  private readonly context: BrokerContext;
  private readonly waits: WorkWaits;
  private readonly control: PostgresControl;
  /** A claimed row leaves two dead versions (its lease, its ack): the hot table is vacuumed as it churns. */
  private readonly vacuum: ChurnVacuum;
  /** Queue lists (joined) whose last reservation came back short: they were drained. */
  private readonly drainedQueues = new Set<string>();
  private closed: Promise<void> | undefined;

  /**
   * A broker on `connection` (retained until `close`); `connection` is the set it queries and
   * listens through, shared with the app's other PostgreSQL parts.
   */
  constructor(
    readonly connection: PostgresConnection,
    settings: BrokerSettings,
  ) {
    connection.retain();
    this.context = brokerContext(connection, settings);
    this.waits = new WorkWaits(this.context);
    this.control = new PostgresControl(this.context);
    this.vacuum = new ChurnVacuum(connection, this.context.tables.messages);
  }

  publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    return this.run('publish tasks', () => publish(this.context, envelopes));
  }

  publishInTransaction(envelopes: readonly Envelope[], transaction: TransactionClient): Promise<PublishOutcome[]> {
    return this.run('publish tasks in the transaction', () => publish(this.context, envelopes, transaction));
  }

  async reserve(queues: readonly string[], count: number): Promise<Delivery[]> {
    const deliveries = await this.run('reserve tasks', () => reserve(this.context, queues, count));
    this.vacuum.note(deliveries.length);
    const key = queues.join('\n');
    if (deliveries.length < count) this.drainedQueues.add(key);
    else this.drainedQueues.delete(key);
    return deliveries;
  }

  waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void> {
    return this.run('wait for work', () => this.waits.wait(queues, signal));
  }

  async waitAndReserve(queues: readonly string[], count: number, signal: AbortSignal): Promise<Delivery[]> {
    await this.waitForWork(queues, signal);
    return signal.aborted || this.closed ? [] : this.reserve(queues, count);
  }

  drained(queues: readonly string[]): boolean {
    return this.drainedQueues.has(queues.join('\n'));
  }

  ack(deliveries: readonly Delivery[], failures?: ReadonlyMap<string, Failure>): Promise<void> {
    return this.run('acknowledge tasks', () => ack(this.context, deliveries, failures));
  }

  keepFailed(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void> {
    return keepFailed(this.context, deliveries, failures);
  }

  listFailed(queue: string, options?: { offset?: number; limit?: number }): Promise<FailedTask[]> {
    return listFailed(this.context, queue, options);
  }

  getFailed(queue: string, ids: readonly string[]): Promise<Array<FailedTask | undefined>> {
    return getFailed(this.context, queue, ids);
  }

  discardFailed(queue: string, ids?: readonly string[]): Promise<number> {
    return discardFailed(this.context, queue, ids);
  }

  countFailed(queue: string): Promise<number> {
    return countFailed(this.context, queue);
  }

  queueNames(): Promise<string[]> {
    return queueNames(this.context);
  }

  requeue(delivery: Delivery, options?: { delay?: number; body?: string }): Promise<void> {
    return this.run('requeue a task', () => requeue(this.context, delivery, options));
  }

  requeueLost(delivery: Delivery, reason: string): Promise<'requeued' | 'dead'> {
    return this.run('requeue a lost task', () => requeueLost(this.context, delivery, reason));
  }

  deadLetter(delivery: Delivery, reason: string): Promise<void> {
    return this.run('dead-letter a task', () => deadLetter(this.context, delivery, reason));
  }

  extendLeases(deliveries: readonly Delivery[]): Promise<void> {
    return this.run('renew leases', () => extendLeases(this.context, deliveries));
  }

  recoverLapsed(queues: readonly string[]): Promise<RecoveryReport> {
    return this.run('recover lapsed leases', () => recoverLapsed(this.context, queues));
  }

  listDead(queue: string, options?: { offset?: number; limit?: number }): Promise<DeadLetter[]> {
    return listDead(this.context, queue, options);
  }

  requeueDead(queue: string, ids?: readonly string[]): Promise<number> {
    return requeueDead(this.context, queue, ids);
  }

  discardDead(queue: string, ids?: readonly string[]): Promise<number> {
    return discardDead(this.context, queue, ids);
  }

  revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    return this.run('revoke a task', () => revoke(this.context, revocation));
  }

  listRevoked(): Promise<Revocation[]> {
    return listRevoked(this.context);
  }

  onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    return onRevoke(this.context, listener);
  }

  heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    return this.run('record the worker heartbeat', () => heartbeat(this.context, info, ttl));
  }

  forgetWorker(hostname: string): Promise<void> {
    return forgetWorker(this.context, hostname);
  }

  listWorkers(): Promise<WorkerInfo[]> {
    return listWorkers(this.context);
  }

  stats(queue: string): Promise<QueueStats> {
    return this.run('count the queue', () => stats(this.context, queue));
  }

  purge(queue: string): Promise<PurgedMessage[]> {
    return purge(this.context, queue);
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
    return setRateLimit(this.context, task, rate);
  }

  rateLimits(): Promise<Record<string, RateSetting>> {
    return rateLimits(this.context);
  }

  unreachable(): string | undefined {
    return this.connection.unreachable();
  }

  /** Runs `call`, a lost connection thrown as BrokerUnavailableError naming what failed and the server. */
  private run<T>(action: string, call: () => Promise<T>): Promise<T> {
    return orUnreachable(action, this.connection, call);
  }

  close(): Promise<void> {
    this.closed ??= Promise.all([this.waits.close(), this.vacuum.idle()]).then(() => this.connection.release());
    return this.closed;
  }
}
