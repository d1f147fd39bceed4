/**
 * A Broker that speaks Celery: task messages are Celery protocol v2 in kombu's Redis queue lists
 * (priority steps as sub-lists), taken into kombu's ack emulation in one atomic step, so Python
 * Celery workers and Celeriac workers share queues and restore each other's lost tasks after the
 * visibility timeout. What Celery has no Redis place for (revocations, worker heartbeats, control)
 * Celeriac keeps under its own prefix, in its {@link CeleriacChannels} (an inner Redis broker).
 *
 * A message's life here: queue list ──take──► unacked (held) ──ack──► gone
 *                                       ▲            │ (eta in the future: held, scored at its eta,
 *                                       │            │  handed to the worker when due)
 *                                       └─ restore ◄─┘ (visibility timeout lapsed, or requeue)
 */
import {
  type BroadcastOptions,
  type Broker,
  type BrokerCapabilities,
  type BrokerSettings,
  type Codec,
  type ControlHandler,
  type ControlReply,
  type ControlRequest,
  type DeadLetter,
  type Delivery,
  type Envelope,
  type PublishOutcome,
  type PurgedMessage,
  type QueueStats,
  type RecoveryReport,
  type Revocation,
  type WorkerInfo,
} from '@celeriac/core';
import { decodeMessage, encodeMessage, type TaskMessage } from '@celeriac/core/internal';
import { RedisBroker, type RedisConnection } from '@celeriac/redis';
import { BlockingCallDropped, singleNode, unavailable } from '@celeriac/redis/internal';
import type { Redis } from 'ioredis';
import { DueTimer } from '../protocol/due-timer';
import { decodeBody, fromCeleryPayload, toCeleryPayload } from '../protocol/message';
import type { CeleryEmbed, CeleryPayload } from '../protocol/payload';
import { PIDBOX_EXCHANGE } from '../protocol/pidbox';
import { toCeleryMeta } from '../protocol/result';
import type { CeleryWorkflow } from '../protocol/workflow';
import { acknowledge, epochSeconds, putBack, rescore, restoreLapsed, type HeldMessage } from './ack-emulation';
import { CELERY_BROKER_CAPABILITIES } from './capabilities';
import { CeleriacChannels } from './celeriac-channels';
import { celeryScripts } from './celery-scripts';
import { CeleryDeadLetters } from './dead-letters';
import { fanoutChannel } from './fanout';
import { CeleryKeys } from './keys';
import { purgeQueue, queueStats } from './queue-contents';

/** Options of the Celery protocol, resolved. */
export interface CeleryBrokerOptions {
  /** kombu's `global_keyprefix`. */
  readonly keyPrefix: string;
  /** kombu's `visibility_timeout`, in ms. */
  readonly visibilityTimeout: number;
  /**
   * What Celery's result backend puts before its key names (`<this>celery-task-meta-<id>`), where the
   * broker stores the FAILURE of a message it refuses.
   * @defaultValue `''` (Celery 5.2's keys)
   */
  readonly resultKeyPrefix?: string;
}

/** An idle worker re-checks at least this often (kombu's own BRPOP wakes every second). */
const MAX_BLOCK_SECONDS = 10;

/** A Broker that speaks Celery protocol v2 on kombu's Redis transport. */
export class CeleryBroker implements Broker {
  readonly capabilities: BrokerCapabilities = CELERY_BROKER_CAPABILITIES;
  /** Revocations, worker records and control: Celeriac's, beside Celery's pidbox. */
  private readonly channels: CeleriacChannels;
  /** Kombu's keys have no hash tags: Celery's protocol runs on one Redis node (or Sentinel). */
  private readonly client: Redis;
  private readonly keys: CeleryKeys;
  private readonly dead: CeleryDeadLetters;
  /** Messages this process holds in the ack emulation, by task id. */
  private readonly held = new Map<string, HeldMessage>();
  /** Messages taken with an eta in the future, handed out when due. */
  private readonly due = new DueTimer<Delivery>();
  private closed = false;

  constructor(
    private readonly connection: RedisConnection,
    settings: BrokerSettings,
    private readonly options: CeleryBrokerOptions,
    private readonly codec: Codec,
    private readonly workflow: CeleryWorkflow,
  ) {
    this.client = singleNode(connection.client, "protocol: 'celery'");
    this.keys = new CeleryKeys(options.keyPrefix, settings.prefix, options.resultKeyPrefix);
    this.dead = new CeleryDeadLetters(this.client, this.keys);
    const channel = fanoutChannel(options.keyPrefix, this.client.options.db ?? 0, PIDBOX_EXCHANGE);
    this.channels = new CeleriacChannels(new RedisBroker(connection, settings), {
      connection,
      channel,
      client: this.client,
      keys: this.keys,
    });
  }

  async publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    const multi = this.client.multi();
    for (const envelope of envelopes) {
      const message = decodeMessage(this.codec, envelope.body);
      const payload = toCeleryPayload(this.codec, message);
      multi.lpush(this.keys.queueFor(envelope.queue, envelope.priority), JSON.stringify(payload));
    }
    if (envelopes.length > 0) multi.sadd(this.keys.queues, ...new Set(envelopes.map((envelope) => envelope.queue)));
    await multi.exec().catch((error: unknown) => {
      throw unavailable(error, 'publish Celery messages', this.connection);
    });
    return envelopes.map(() => 'published');
  }

  async reserve(queues: readonly string[], count: number): Promise<Delivery[]> {
    return this.take(this.client, queues, count, undefined);
  }

  async waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void> {
    const deliveries = await this.waitAndReserve(queues, 1, signal);
    // Nothing is taken by a wait: what the wait took goes back where the next reserve finds it first.
    await Promise.all(deliveries.map((delivery) => this.requeue(delivery)));
  }

  /** Blocks (BRPOP, as kombu) on the queue lists until a message comes, one comes due, or the signal aborts. */
  async waitAndReserve(queues: readonly string[], count: number, signal: AbortSignal): Promise<Delivery[]> {
    if (signal.aborted || this.closed) return [];
    const ready = this.due.takeDue(count);
    if (ready.length > 0) return ready;
    const lists = queues.flatMap((queue) => this.keys.queueLists(queue));
    const blocking = this.connection.acquireBlocking();
    // Ended by the caller's signal, or when the next held delayed message comes due.
    const wake = new AbortController();
    const onAbort = () => wake.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) wake.abort();
    const stopTimer = this.due.onNextDue(onAbort);
    try {
      const call = { via: this.client, signal: wake.signal, bound: (MAX_BLOCK_SECONDS + 5) * 1000 };
      const popped = await blocking.call(call, (client) => client.brpop(...lists, MAX_BLOCK_SECONDS));
      if (!popped) return this.due.takeDue(count);
      const [list, raw] = popped;
      // Held at once: between the pop and this step, a crash would lose the message (as in kombu). A
      // connection dropped meanwhile (closing) holds it through the command client instead.
      const popping = { raw, index: lists.indexOf(list) };
      return await blocking
        .settle(this.take(singleNode(blocking.client, "protocol: 'celery'"), queues, count, popping))
        .catch((error: unknown) => {
          if (!(error instanceof BlockingCallDropped)) throw error;
          return this.take(singleNode(this.client, "protocol: 'celery'"), queues, count, popping);
        });
    } catch (error) {
      if (wake.signal.aborted || error instanceof BlockingCallDropped || this.closed) return this.due.takeDue(count);
      throw unavailable(error, 'wait for Celery messages', this.connection);
    } finally {
      stopTimer();
      signal.removeEventListener('abort', onAbort);
      this.connection.releaseBlocking(blocking);
    }
  }

  async ack(deliveries: readonly Delivery[]): Promise<void> {
    await acknowledge(this.client, this.keys, this.release(deliveries));
  }

  async requeue(delivery: Delivery, options: { delay?: number; body?: string } = {}): Promise<void> {
    const held = this.held.get(delivery.id);
    if (!held) return;
    this.held.delete(delivery.id);
    const message = options.body === undefined ? undefined : decodeMessage(this.codec, options.body);
    // A retry keeps what runs after the task (a Celery chain, callbacks): the new body does not carry it.
    const payload: CeleryPayload = message
      ? toCeleryPayload(this.codec, message, decodeBody(held.payload.body, held.payload.properties?.body_encoding)[2])
      : structuredClone(held.payload);
    // A delay travels as the message's eta, as Celery sends a retry: any worker may take it and waits.
    if (options.delay !== undefined && options.delay > 0) {
      payload.headers.eta = new Date(Date.now() + options.delay).toISOString();
    }
    await putBack(this.client, this.keys, held, payload);
  }

  async requeueLost(delivery: Delivery): Promise<'requeued' | 'dead'> {
    await this.requeue(delivery);
    return 'requeued';
  }

  async deadLetter(delivery: Delivery, reason: string): Promise<void> {
    const held = this.held.get(delivery.id);
    this.held.delete(delivery.id);
    await this.dead.add({ id: delivery.id, queue: delivery.queue, reason, held });
  }

  async extendLeases(deliveries: readonly Delivery[]): Promise<void> {
    const tags = deliveries.flatMap((delivery) => this.held.get(delivery.id)?.tag ?? []);
    await rescore(this.client, this.keys, tags, epochSeconds());
  }

  async recoverLapsed(): Promise<RecoveryReport> {
    const ceiling = epochSeconds(Date.now() - this.options.visibilityTimeout);
    const requeued = await restoreLapsed(this.client, this.keys, ceiling);
    return { requeued, dead: [] };
  }

  listDead(queue: string, options?: { offset?: number; limit?: number }): Promise<DeadLetter[]> {
    return this.dead.list(queue, options);
  }

  requeueDead(queue: string, ids?: readonly string[]): Promise<number> {
    return this.dead.requeue(queue, ids);
  }

  discardDead(queue: string, ids?: readonly string[]): Promise<number> {
    return this.dead.discard(queue, ids);
  }

  stats(queue: string): Promise<QueueStats> {
    return queueStats(
      this.client,
      this.keys,
      queue,
      this.due.count((delivery) => delivery.queue === queue),
    );
  }

  purge(queue: string): Promise<PurgedMessage[]> {
    return purgeQueue(this.client, this.keys, this.codec, queue);
  }

  revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    return this.channels.revoke(revocation);
  }

  listRevoked(): Promise<Revocation[]> {
    return this.channels.listRevoked();
  }

  onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    return this.channels.onRevoke(listener);
  }

  heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    return this.channels.heartbeat(info, ttl);
  }

  forgetWorker(hostname: string): Promise<void> {
    return this.channels.forgetWorker(hostname);
  }

  listWorkers(): Promise<WorkerInfo[]> {
    return this.channels.listWorkers();
  }

  broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    return this.channels.broadcast(request, options);
  }

  onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    return this.channels.onControl(handler);
  }

  pauseQueue(queue: string): Promise<void> {
    return this.channels.pauseQueue(queue);
  }

  resumeQueue(queue: string): Promise<void> {
    return this.channels.resumeQueue(queue);
  }

  pausedQueues(): Promise<string[]> {
    return this.channels.pausedQueues();
  }

  async listQueues(): Promise<string[]> {
    return this.client.smembers(this.keys.queues).catch((error: unknown) => {
      throw unavailable(error, 'list the Celery queues', this.connection);
    });
  }

  reconnect(): void {
    this.connection.reconnectWaits();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Messages waiting for their eta go back now rather than after the visibility timeout.
    const waiting = this.due.clear();
    await Promise.all(waiting.map((delivery) => this.requeue(delivery))).catch(() => undefined);
    await this.channels.close();
  }

  /** Takes messages into the ack emulation and turns them into deliveries. */
  private async take(
    client: Redis,
    queues: readonly string[],
    count: number,
    popped: { raw: string; index: number } | undefined,
  ): Promise<Delivery[]> {
    const ready = this.due.takeDue(count);
    const room = count - ready.length;
    if (room <= 0 && !popped) return ready;
    const listQueues = queues.flatMap((queue) => this.keys.queueLists(queue).map(() => queue));
    const lists = queues.flatMap((queue) => this.keys.queueLists(queue));
    const reply = await celeryScripts
      .run<Array<string | number>>(
        client,
        'reserve',
        [this.keys.unacked, this.keys.unackedIndex, ...lists],
        [Math.max(room, popped ? 1 : 0), epochSeconds(), popped?.raw ?? '', (popped?.index ?? 0) + 1, ...listQueues],
      )
      .catch((error: unknown) => {
        throw unavailable(error, 'take Celery messages', this.connection);
      });
    const deliveries = [...ready];
    for (let at = 0; at < reply.length; at += 2) {
      const queue = listQueues[Number(reply[at]) - 1] ?? queues[0] ?? '';
      const delivery = await this.accept(String(reply[at + 1]), queue);
      const eta = delivery && this.due.etaOf(delivery);
      if (delivery && eta === undefined) deliveries.push(delivery);
      else if (delivery && eta !== undefined) {
        // Scored at its eta, a waiting message is restored only if not run by eta + visibility timeout.
        const tag = this.held.get(delivery.id)?.tag;
        if (tag !== undefined) await rescore(client, this.keys, [tag], epochSeconds(eta));
      }
    }
    return deliveries;
  }

  /** A taken message as a delivery; one that cannot be read is dead-lettered, and its caller told. */
  private async accept(raw: string, queue: string): Promise<Delivery | undefined> {
    let payload: CeleryPayload;
    try {
      payload = JSON.parse(raw) as CeleryPayload;
    } catch {
      await this.dead.add({ id: 'unknown', queue, reason: 'not a Celery message (not JSON)', raw });
      return undefined;
    }
    const tag = payload.properties?.delivery_tag;
    const held: HeldMessage | undefined = typeof tag === 'string' ? { tag, payload, queue } : undefined;
    let message: TaskMessage;
    let taken: CeleryEmbed | undefined;
    try {
      message = fromCeleryPayload(this.codec, payload, queue, (embed) => (taken = embed));
    } catch (error) {
      const id = typeof payload.headers?.id === 'string' ? payload.headers.id : 'unknown';
      await this.dead.add({ id, queue, reason: (error as Error).message, held, raw });
      if (id !== 'unknown') await this.refuse(id, error as Error);
      return undefined;
    }
    if (held) this.held.set(message.id, held);
    if (taken) this.workflow.remember(message.id, message.rootId ?? message.id, taken, payload.headers);
    const redelivered = payload.headers.redelivered === true;
    const delivery: Delivery = {
      id: message.id,
      queue,
      body: encodeMessage(this.codec, message),
      deliveries: redelivered ? 2 : 1,
    };
    if (message.eta !== undefined && message.eta > Date.now()) this.due.add(delivery, message.eta);
    return delivery;
  }

  /** Tells the Python caller why its task will not run: a FAILURE its `get()` raises. */
  private async refuse(id: string, error: Error): Promise<void> {
    const meta = toCeleryMeta(
      { id, state: 'FAILURE', error: { name: 'ContentDisallowed', message: error.message }, date: Date.now() },
      this.codec,
    );
    const key = this.keys.result(id);
    await this.client.multi().set(key, meta, 'PX', 86_400_000).publish(key, meta).exec();
  }

  private release(deliveries: readonly Delivery[]): string[] {
    return deliveries.flatMap((delivery) => {
      const held = this.held.get(delivery.id);
      this.held.delete(delivery.id);
      return held ? [held.tag] : [];
    });
  }
}
