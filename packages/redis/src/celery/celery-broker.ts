/**
 * A Broker that speaks Celery: task messages are Celery protocol v2 in kombu's Redis queue lists
 * (priority steps as sub-lists), taken into kombu's ack emulation in one atomic step, so Python
 * Celery workers and Celeriac workers share queues and restore each other's lost tasks after the
 * visibility timeout. What Celery has no Redis place for (revocations, worker heartbeats, control)
 * Celeriac keeps under its own prefix, through an inner {@link RedisBroker}.
 *
 * A message's life here: queue list ──take──► unacked (held) ──ack──► gone
 *                                       ▲            │ (eta in the future: held, scored at its eta,
 *                                       │            │  handed to the worker when due)
 *                                       └─ restore ◄─┘ (visibility timeout lapsed, or requeue)
 */
import {
  type Broker,
  type BrokerCapabilities,
  type BrokerSettings,
  type Codec,
  type DeadLetter,
  type Delivery,
  type Envelope,
  type PublishOutcome,
  type PurgedMessage,
  type QueueStats,
  type RecoveryReport,
} from '@celeriac/core';
import { decodeMessage, encodeMessage, type TaskMessage } from '@celeriac/core/internal';
import type { Redis } from 'ioredis';
import { BlockingCallDropped } from '../blocking-client';
import type { RedisConnection } from '../connection';
import { RedisBroker } from '../redis-broker';
import { singleNode } from '../redis-client';
import { runScript } from '../scripts';
import { unavailable } from '../unavailable';
import { acknowledge, epochSeconds, putBack, rescore, restoreLapsed, type HeldMessage } from './ack-emulation';
import { CeleriacChannels } from './celeriac-channels';
import { CELERY_BROKER_CAPABILITIES } from './celery-capabilities';
import { PIDBOX_EXCHANGE } from './celery-pidbox';
import { fanoutChannel } from './kombu-fanout';
import { CeleryDeadLetters } from './celery-dead-letters';
import { CeleryKeys, priorityStep, resultKey } from './celery-keys';
import { decodeBody, fromCeleryPayload, toCeleryPayload } from './celery-message';
import type { CeleryEmbed, CeleryPayload } from './celery-payload';
import type { CeleryWorkflow } from './celery-workflow';
import { toCeleryMeta } from './celery-result';
import { DueTimer } from './due-timer';

/** Options of the Celery protocol, resolved. */
export interface CeleryBrokerOptions {
  /** kombu's `global_keyprefix`. */
  readonly keyPrefix: string;
  /** kombu's `visibility_timeout`, in ms. */
  readonly visibilityTimeout: number;
}

/** An idle worker re-checks at least this often (kombu's own BRPOP wakes every second). */
const MAX_BLOCK_SECONDS = 10;

/** A Broker that speaks Celery protocol v2 on kombu's Redis transport. */
export class CeleryBroker extends CeleriacChannels implements Broker {
  readonly capabilities: BrokerCapabilities = CELERY_BROKER_CAPABILITIES;
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
    const client = singleNode(connection.client, "protocol: 'celery'");
    const pidbox = fanoutChannel(options.keyPrefix, client.options.db ?? 0, PIDBOX_EXCHANGE);
    const keys = new CeleryKeys(options.keyPrefix, settings.prefix);
    super(new RedisBroker(connection, settings), { connection, channel: pidbox, client, keys });
    this.client = client;
    this.keys = keys;
    this.dead = new CeleryDeadLetters(this.client, this.keys);
  }

  async publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    const multi = this.client.multi();
    for (const envelope of envelopes) {
      const message = decodeMessage(this.codec, envelope.body);
      const payload = toCeleryPayload(this.codec, message);
      multi.lpush(this.keys.queue(envelope.queue, priorityStep(envelope.priority)), JSON.stringify(payload));
    }
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

  async stats(queue: string): Promise<QueueStats> {
    const pipeline = this.client.pipeline();
    for (const list of this.keys.queueLists(queue)) pipeline.llen(list);
    pipeline.hvals(this.keys.unacked);
    pipeline.llen(this.keys.dead(queue));
    const replies = ((await pipeline.exec()) ?? []).map(([, value]) => value);
    const lengths = replies.slice(0, 4) as number[];
    const entries = (replies[4] ?? []) as string[];
    // kombu writes `[message, exchange, routing key]` with ", " between items, Celeriac without the space.
    const routedHere = `,${JSON.stringify(queue)}]`;
    const active = entries.filter((entry) => entry.replace(/,\s+(?=[^,]*\]$)/, ',').endsWith(routedHere)).length;
    return {
      ready: lengths.reduce((sum, length) => sum + length, 0),
      delayed: this.due.count((delivery) => delivery.queue === queue),
      active,
      dead: Number(replies[5] ?? 0),
    };
  }

  async purge(queue: string): Promise<PurgedMessage[]> {
    const lists = this.keys.queueLists(queue);
    const multi = this.client.multi();
    for (const list of lists) multi.lrange(list, 0, -1);
    multi.del(...lists);
    const replies = ((await multi.exec()) ?? []).map(([, value]) => value);
    const raws = (replies.slice(0, lists.length) as string[][]).flat();
    return raws.flatMap((raw) => {
      const message = this.readable(JSON.parse(raw) as CeleryPayload, queue);
      return message ? [{ id: message.id, body: encodeMessage(this.codec, message) }] : [];
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
    await this.inner.close();
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
    const reply = await runScript<Array<string | number>>(
      client,
      'celeryReserve',
      [this.keys.unacked, this.keys.unackedIndex, ...lists],
      [Math.max(room, popped ? 1 : 0), epochSeconds(), popped?.raw ?? '', (popped?.index ?? 0) + 1, ...listQueues],
    ).catch((error: unknown) => {
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
    const meta = toCeleryMeta({
      id,
      state: 'FAILURE',
      error: { name: 'ContentDisallowed', message: error.message },
      date: Date.now(),
    });
    await this.client.multi().set(resultKey(id), meta, 'PX', 86_400_000).publish(resultKey(id), meta).exec();
  }

  private readable(payload: CeleryPayload, queue: string): TaskMessage | undefined {
    try {
      return fromCeleryPayload(this.codec, payload, queue);
    } catch {
      return undefined;
    }
  }

  private release(deliveries: readonly Delivery[]): string[] {
    return deliveries.flatMap((delivery) => {
      const held = this.held.get(delivery.id);
      this.held.delete(delivery.id);
      return held ? [held.tag] : [];
    });
  }
}
