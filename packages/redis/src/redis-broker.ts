/**
 * The Redis broker: a reliable queue where a reserved message waits in a leased `active` set until it
 * is acked, a lapsed lease brings it back (counted, then dead-lettered), delayed messages wait in a
 * sorted set by due time, and idle workers block on a wake-up marker instead of polling.
 * Every multi-key step is one Lua script (see `scripts/`).
 */
import {
  type BroadcastOptions,
  type Broker,
  type BrokerSettings,
  type DeadLetter,
  type Delivery,
  type Envelope,
  type FailedTask,
  type Failure,
  type PublishOutcome,
  type PurgedMessage,
  type QueueStats,
  type RecoveryReport,
  type Revocation,
  type WorkerInfo,
  type ControlHandler,
  type ControlReply,
  type ControlRequest,
  type RateSetting,
} from '@celeriac/core';
import { corked, type RedisConnection } from './connection';
import { RedisFailedRegistry } from './failed-registry';
import { KeySpace, queueKeyList } from './keys';
import { groupBySlot } from './key-slot';
import { isCluster, publish, scanKeys } from './redis-client';
import { RedisControl } from './redis-control';
import { awaitReplicas } from './replication';
import { listRateLimits, setRateLimit } from './redis-rate-limits';
import { runScript, type ScriptName } from './scripts';
import { unavailable } from './unavailable';

/** Most envelopes per publish script call, so one call never blocks Redis for long. */
const PUBLISH_CHUNK = 1_000;
/** Most publish script calls in flight at once for one publish. */
const PUBLISH_WINDOW = 4;
/** Most lapsed leases handled per queue per sweep. */
const RECOVER_LIMIT = 1_000;
/** An idle worker re-checks at least this often, in case a wake-up was taken by a worker that died. */
const MAX_BLOCK_MS = 10_000;

/** A Broker on Redis. */
export class RedisBroker implements Broker {
  private readonly keys: KeySpace;
  private readonly knownQueues = new Set<string>();
  private readonly failed: RedisFailedRegistry;
  private closed = false;
  private readonly control: RedisControl;
  /** The earliest delayed due time seen by the last reserve that found nothing, to size the next wait. */
  private idleHint: { queues: string; nextDue: number | undefined } | undefined;

  constructor(
    private readonly connection: RedisConnection,
    private readonly settings: BrokerSettings,
  ) {
    this.keys = new KeySpace(settings.prefix);
    this.control = new RedisControl(connection, this.keys);
    this.failed = new RedisFailedRegistry(connection.client, this.keys, settings);
    connection.retain();
  }

  async publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    const byQueue = new Map<string, number[]>();
    envelopes.forEach((envelope, index) => {
      const indexes = byQueue.get(envelope.queue) ?? [];
      indexes.push(index);
      byQueue.set(envelope.queue, indexes);
    });
    const outcomes = new Array<PublishOutcome>(envelopes.length);
    const now = Date.now();
    const calls: Array<Promise<void>> = [];
    const chunks: Array<() => Promise<void>> = [];
    for (const [queue, indexes] of byQueue) {
      if (!this.knownQueues.has(queue)) calls.push(this.rememberQueue(queue));
      for (let start = 0; start < indexes.length; start += PUBLISH_CHUNK) {
        const chunk = indexes.slice(start, start + PUBLISH_CHUNK);
        chunks.push(() =>
          this.script<PublishReply>('publish', queue, publishArgs(now, chunk, envelopes)).then((results) => {
            chunk.forEach((index, position) => (outcomes[index] = outcomeOf(results[position])));
          }),
        );
      }
    }
    // A few chunks in flight at a time: the script calls of a group of 100,000 would otherwise all be
    // encoded for the socket at once (three copies of every message in the sender's memory).
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < chunks.length) await (chunks[next++] as () => Promise<void>)();
    };
    for (let lanes = 0; lanes < Math.min(PUBLISH_WINDOW, chunks.length); lanes += 1) calls.push(lane());
    try {
      await Promise.all(calls);
      await awaitReplicas(this.connection.client, this.settings.replication, 'the published tasks');
    } catch (error) {
      throw unavailable(error, 'publish', this.connection);
    }
    return outcomes;
  }

  async reserve(queues: readonly string[], count: number): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    const now = Date.now();
    let nextDue: number | undefined;
    let drained = true;
    for (const queue of queues) {
      if (deliveries.length >= count) {
        drained = false;
        break;
      }
      const wanted = count - deliveries.length;
      const reply = await this.script<ReserveReply>('reserve', queue, [now, wanted, this.settings.visibilityTimeout]);
      const taken = parseReserved(queue, reply);
      // '+': more are ready; otherwise the queue is empty and the reply tells the next due time, if any.
      if (reply[0] === '+') drained = false;
      else if (reply[0] !== '' && reply[0] !== undefined) nextDue = Math.min(nextDue ?? Infinity, Number(reply[0]));
      deliveries.push(...taken);
    }
    this.idleHint = drained ? { queues: queues.join(','), nextDue } : undefined;
    return deliveries;
  }

  drained(queues: readonly string[]): boolean {
    return this.idleHint?.queues === queues.join(',');
  }

  async waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void> {
    await this.waitLoop(queues, 0, signal);
  }

  async waitAndReserve(queues: readonly string[], count: number, signal: AbortSignal): Promise<Delivery[]> {
    return this.waitLoop(queues, count, signal);
  }

  /**
   * Sleeps until a wake-up marker, the next due time or the signal; with `count`, reserves from the first queue on
   * waking.
   */
  private async waitLoop(queues: readonly string[], count: number, signal: AbortSignal): Promise<Delivery[]> {
    if (signal.aborted || this.closed) return [];
    // A reserve that just found nothing already told the next due time; a message published since
    // then sets the wake-up marker, so the hint cannot make us miss it.
    const hint = this.idleHint?.queues === queues.join(',') ? this.idleHint : undefined;
    this.idleHint = undefined;
    let nextDue = hint ? hint.nextDue : await this.nextDue(queues);
    const markers = queues.map((queue) => this.keys.queue(queue).marker);
    // On a cluster, one wait blocks on the markers of one slot: queues in other slots get waits of their own.
    const groups = isCluster(this.connection.client) ? groupBySlot(markers, (marker) => marker) : [markers];
    for (;;) {
      if (signal.aborted || this.closed || (nextDue !== undefined && nextDue <= Date.now())) return [];
      const woken =
        groups.length === 1
          ? await this.block(markers, nextDue, signal, count > 0 ? queues[0] : undefined, count)
          : await this.blockEach(groups, nextDue, signal, count > 0 ? queues[0] : undefined, count);
      if (woken.deliveries.length > 0) return woken.deliveries;
      // A marker scored in the future announces a delayed message: sleep until then instead.
      if (woken.score === undefined || woken.score <= Date.now()) return [];
      nextDue = Math.min(nextDue ?? Infinity, woken.score);
    }
  }

  /**
   * Blocks on groups of markers (each group on one slot) at once, until one wakes; then ends the
   * other waits. Only the group holding `queue`'s marker reserves behind its wait: whichever queue
   * woke the worker, the caller's next reserve takes the queues in their order again.
   */
  private async blockEach(
    groups: string[][],
    nextDue: number | undefined,
    signal: AbortSignal,
    queue: string | undefined,
    count: number,
  ): Promise<{ score: number | undefined; deliveries: Delivery[] }> {
    const race = new AbortController();
    const endRace = () => race.abort();
    signal.addEventListener('abort', endRace, { once: true });
    const first = queue === undefined ? undefined : this.keys.queue(queue).marker;
    try {
      const results = await Promise.all(
        groups.map((group) =>
          this.block(group, nextDue, race.signal, first && group.includes(first) ? queue : undefined, count).finally(
            endRace,
          ),
        ),
      );
      const scores = results.flatMap((result) => (result.score === undefined ? [] : [result.score]));
      return {
        score: scores.length > 0 ? Math.min(...scores) : undefined,
        deliveries: results.flatMap((result) => result.deliveries),
      };
    } finally {
      signal.removeEventListener('abort', endRace);
    }
  }

  /**
   * Blocks on the wake-up markers until one is set, the next due time, or the signal. With a queue,
   * a reserve is queued on the same connection right behind the wait, so it runs the moment the
   * wait ends (Redis's clock sets its lease).
   */
  private async block(
    markers: string[],
    nextDue: number | undefined,
    signal: AbortSignal,
    queue: string | undefined,
    count: number,
  ): Promise<{ score: number | undefined; deliveries: Delivery[] }> {
    const blocking = this.connection.acquireBlocking();
    await blocking.ready(markers[0]);
    const client = blocking.client;
    // Set when this side ends the wait (signal, due time): the blocked call then ends as planned.
    let woken = false;
    // Set once the wait ended: an unblock that found no blocked call then had nothing to end.
    let settled = false;
    const onAbort = () => {
      woken = true;
      void blocking.unblock(this.connection.client).then((unblocked) => {
        // No such call on the slot's master: it waits on a connection to a master that failed over.
        if (!unblocked && !settled) blocking.disconnect();
      });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Ended while the connection was made ready: the listener above will not hear it.
    if (signal.aborted) {
      signal.removeEventListener('abort', onAbort);
      this.connection.releaseBlocking(blocking);
      return { score: undefined, deliveries: [] };
    }
    // Wake exactly at the next due time with a local timer; Redis's own timeout is coarse (~100 ms).
    const timer = setTimeout(
      onAbort,
      Math.min(MAX_BLOCK_MS, nextDue === undefined ? MAX_BLOCK_MS : nextDue - Date.now()),
    );
    try {
      const [popping, reserving] = corked(
        client,
        () =>
          [
            client.bzpopmin(...markers, (MAX_BLOCK_MS * 2) / 1000),
            queue === undefined
              ? undefined
              : runScript<ReserveReply>(client, 'reserve', queueKeyList(this.keys.queue(queue)), [
                  '',
                  count,
                  this.settings.visibilityTimeout,
                ]),
          ] as const,
      );
      reserving?.catch(() => undefined);
      const reply = await popping.finally(() => (settled = true));
      const reserved = (await reserving) ?? [''];
      const deliveries = queue === undefined ? [] : parseReserved(queue, reserved);
      if (queue !== undefined && reserved[0] !== '+') {
        // The queue was emptied by this reservation: the next wait may start without asking again.
        const due = reserved[0] === '' || reserved[0] === undefined ? undefined : Number(reserved[0]);
        this.idleHint = { queues: queue, nextDue: due };
      }
      return { score: reply ? Number(reply[2]) : undefined, deliveries };
    } catch (error) {
      if (woken || signal.aborted || this.closed) return { score: undefined, deliveries: [] };
      throw unavailable(error, 'wait for work', this.connection);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.connection.releaseBlocking(blocking);
    }
  }

  async ack(deliveries: readonly Delivery[], failures?: ReadonlyMap<string, Failure>): Promise<void> {
    const failed = failures && failures.size > 0 ? deliveries.filter((delivery) => failures.has(delivery.id)) : [];
    const done = failed.length > 0 ? deliveries.filter((delivery) => !failures?.has(delivery.id)) : deliveries;
    await Promise.all([
      ...[...groupByQueue(done)].map(([queue, items]) =>
        this.script(
          'ack',
          queue,
          items.flatMap((delivery) => [delivery.id, delivery.deliveries]),
        ),
      ),
      ...[...groupByQueue(failed)].map(([queue, items]) =>
        this.failed.ack(queue, items, failures as ReadonlyMap<string, Failure>),
      ),
      // Rare (a worker died after keeping an entry, before its ack): no cost on first deliveries.
      ...[...groupByQueue(done.filter((delivery) => delivery.deliveries > 1))].map(([queue, items]) =>
        this.failed.discard(
          queue,
          items.map((delivery) => delivery.id),
        ),
      ),
    ]);
    // A lost ack runs the task again; with 'replicated' a failover does not bring finished tasks back.
    await awaitReplicas(this.connection.client, this.settings.replication, 'the acks of finished tasks');
  }

  async keepFailed(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void> {
    await Promise.all([...groupByQueue(deliveries)].map(([queue, items]) => this.failed.keep(queue, items, failures)));
  }

  listFailed(queue: string, options: { offset?: number; limit?: number } = {}): Promise<FailedTask[]> {
    return this.failed.list(queue, options.offset ?? 0, options.limit ?? 100);
  }

  getFailed(queue: string, ids: readonly string[]): Promise<Array<FailedTask | undefined>> {
    return this.failed.get(queue, ids);
  }

  countFailed(queue: string): Promise<number> {
    return this.failed.count(queue);
  }

  discardFailed(queue: string, ids?: readonly string[]): Promise<number> {
    return this.failed.discard(queue, ids);
  }

  async queueNames(): Promise<string[]> {
    return (await this.connection.client.smembers(this.keys.queues)).sort();
  }

  async requeue(delivery: Delivery, options: { delay?: number; body?: string } = {}): Promise<void> {
    await this.script('requeue', delivery.queue, [
      delivery.id,
      delivery.deliveries,
      Date.now(),
      Math.max(0, Math.round(options.delay ?? 0)),
      options.body ?? '',
    ]);
  }

  async requeueLost(delivery: Delivery, reason: string): Promise<'requeued' | 'dead'> {
    const outcome = await this.script<number>('requeueLost', delivery.queue, [
      delivery.id,
      delivery.deliveries,
      Date.now(),
      this.settings.maxDeliveries,
      reason,
      this.settings.maxMessageSize ?? 0,
    ]);
    return outcome === 2 ? 'dead' : 'requeued';
  }

  async deadLetter(delivery: Delivery, reason: string): Promise<void> {
    await this.script('deadLetter', delivery.queue, [
      delivery.id,
      delivery.deliveries,
      Date.now(),
      reason,
      this.settings.maxMessageSize ?? 0,
    ]);
  }

  async extendLeases(deliveries: readonly Delivery[]): Promise<void> {
    const deadline = Date.now() + this.settings.visibilityTimeout;
    await Promise.all(
      [...groupByQueue(deliveries)].map(([queue, items]) =>
        this.script('extendLeases', queue, [
          deadline,
          ...items.flatMap((delivery) => [delivery.id, delivery.deliveries]),
        ]),
      ),
    );
  }

  async recoverLapsed(queues: readonly string[]): Promise<RecoveryReport> {
    const requeued: string[] = [];
    const dead: DeadLetter[] = [];
    const now = Date.now();
    await Promise.all(
      queues.map(async (queue) => {
        const [ids, buried] = await this.script<[string[], string[]]>('recover', queue, [
          now,
          this.settings.maxDeliveries,
          RECOVER_LIMIT,
          this.settings.maxMessageSize ?? 0,
        ]);
        requeued.push(...ids);
        for (let i = 0; i < buried.length; i += 4) {
          dead.push({
            id: buried[i] as string,
            queue,
            body: buried[i + 1] as string,
            reason: buried[i + 2] as string,
            at: Number(buried[i + 3]),
          });
        }
      }),
    );
    return { requeued, dead };
  }

  async listDead(queue: string, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter[]> {
    const keys = this.keys.queue(queue);
    const offset = options.offset ?? 0;
    const ids = await this.connection.client.zrange(keys.dead, offset, offset + (options.limit ?? 100) - 1);
    if (ids.length === 0) return [];
    const infos = await this.connection.client.hmget(keys.deadInfo, ...ids);
    return ids.flatMap((id, index) => {
      const info = infos[index];
      if (!info) return [];
      const parsed = deadInfoOf(info);
      const letter: DeadLetter = { id, queue, body: parsed.body, reason: parsed.reason, at: parsed.at };
      return [parsed.size === undefined ? letter : { ...letter, size: parsed.size }];
    });
  }

  async requeueDead(queue: string, ids?: readonly string[]): Promise<number> {
    // No ids means all to the script; an empty list means none.
    if (ids?.length === 0) return 0;
    return this.script<number>('requeueDead', queue, ids ?? []);
  }

  async discardDead(queue: string, ids?: readonly string[]): Promise<number> {
    if (ids?.length === 0) return 0;
    return this.script<number>('discardDead', queue, ids ?? []);
  }

  async revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }> {
    const { client } = this.connection;
    const now = Date.now();
    const payload = JSON.stringify(revocation);
    await runScript(
      client,
      'revokeNote',
      [this.keys.revoked, this.keys.revokedInfo],
      [revocation.id, now + this.settings.revokeTtl, payload, now],
    );
    await publish(client, this.keys.revokeChannel, payload).catch((error: unknown) => {
      throw unavailable(error, `announce the revocation on channel ${this.keys.revokeChannel}`, this.connection);
    });
    const queues = await client.smembers(this.keys.queues);
    const removed = await Promise.all(
      queues.map((queue) => this.script<string | number>('revoke', queue, [revocation.id])),
    );
    const body = removed.find((reply): reply is string => typeof reply === 'string');
    return body === undefined ? { removed: false } : { removed: true, body };
  }

  async listRevoked(): Promise<Revocation[]> {
    const { client } = this.connection;
    const ids = await client.zrangebyscore(this.keys.revoked, Date.now(), '+inf');
    if (ids.length === 0) return [];
    const infos = await client.hmget(this.keys.revokedInfo, ...ids);
    return ids.map((id, index) => {
      const info = infos[index];
      return info ? revocationOf(id, info) : { id, terminate: false };
    });
  }

  async onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>> {
    // Announcements missed while the subscriber reconnected are read back from the stored list.
    const stopRecheck = this.connection.subscriber.onReconnect(() => {
      this.listRevoked().then(
        (revocations) => revocations.forEach(listener),
        () => undefined,
      );
    });
    const unsubscribe = await this.connection.subscriber.subscribe(this.keys.revokeChannel, (message) => {
      // A malformed announcement is ignored; the stored list stays authoritative.
      const revocation = revocationOf(undefined, message);
      if (revocation) listener(revocation);
    });
    return async () => {
      stopRecheck();
      await unsubscribe();
    };
  }

  async heartbeat(info: WorkerInfo, ttl: number): Promise<void> {
    await this.connection.client.set(
      this.keys.worker(info.hostname),
      JSON.stringify(info),
      'PX',
      Math.max(1, Math.round(ttl)),
    );
  }

  async forgetWorker(hostname: string): Promise<void> {
    await this.connection.client.del(this.keys.worker(hostname));
  }

  async listWorkers(): Promise<WorkerInfo[]> {
    const { client } = this.connection;
    const keys = await scanKeys(client, this.keys.worker('*'));
    // Heartbeats spread over a cluster's slots: one MGET per slot.
    const groups = isCluster(client) ? groupBySlot(keys, (key) => key) : keys.length > 0 ? [keys] : [];
    const infos = (await Promise.all(corked(client, () => groups.map((group) => client.mget(...group))))).flat();
    return infos.flatMap((info) => (info ? [JSON.parse(info) as WorkerInfo] : []));
  }

  async stats(queue: string): Promise<QueueStats> {
    const keys = this.keys.queue(queue);
    const results =
      (await this.connection.client
        .pipeline()
        .zcard(keys.ready)
        .zcard(keys.delayed)
        .zcard(keys.active)
        .zcard(keys.dead)
        .exec()) ?? [];
    const [ready, delayed, active, dead] = results.map(([error, count]) => {
      if (error) throw error;
      return Number(count);
    });
    return { ready: ready ?? 0, delayed: delayed ?? 0, active: active ?? 0, dead: dead ?? 0 };
  }

  async purge(queue: string): Promise<PurgedMessage[]> {
    const reply = await this.script<string[]>('purge', queue, []);
    const removed: PurgedMessage[] = [];
    for (let index = 0; index < reply.length; index += 2)
      removed.push({ id: reply[index] as string, body: reply[index + 1] as string });
    return removed;
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
    return setRateLimit(this.connection.client, this.keys, task, rate);
  }

  rateLimits(): Promise<Record<string, RateSetting>> {
    return listRateLimits(this.connection.client, this.keys);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }

  private async nextDue(queues: readonly string[]): Promise<number | undefined> {
    const { client } = this.connection;
    // One command a queue, in one write (not a pipeline: the queues may be in different slots of a cluster).
    const heads = await Promise.all(
      corked(client, () => queues.map((queue) => client.zrange(this.keys.queue(queue).delayed, 0, 0, 'WITHSCORES'))),
    );
    const dues = heads.filter((head) => head.length === 2).map((head) => Number(head[1]));
    return dues.length > 0 ? Math.min(...dues) : undefined;
  }

  private async rememberQueue(queue: string): Promise<void> {
    await this.connection.client.sadd(this.keys.queues, queue);
    this.knownQueues.add(queue);
  }

  private script<T = unknown>(name: ScriptName, queue: string, args: ReadonlyArray<string | number>): Promise<T> {
    return runScript<T>(this.connection.client, name, queueKeyList(this.keys.queue(queue)), args);
  }
}

/** The publish script's arguments for the envelopes at `indexes` (see publish-9.lua). */
function publishArgs(now: number, indexes: readonly number[], envelopes: readonly Envelope[]): Array<string | number> {
  const args: Array<string | number> = [now, indexes.length];
  for (const index of indexes) {
    const envelope = envelopes[index] as Envelope;
    args.push(
      envelope.id,
      envelope.priority,
      envelope.eta ?? 0,
      envelope.replaces ? '2' : envelope.idempotent ? '1' : '0',
      envelope.body,
      envelope.limits ? JSON.stringify(envelope.limits) : '',
    );
  }
  return args;
}

/** The publish script's reply: one result a message (see publish-9.lua). */
type PublishReply = Array<number | string | [string, string]>;

/**
 * A publish script result: 1 stored, 0 a duplicate id, 2 a missed debounce replacement, the id of
 * the unique task it duplicates (or the debounced task it replaced), or the debounced task to replace.
 */
function outcomeOf(result: PublishReply[number] | undefined): PublishOutcome {
  if (typeof result === 'string') return { duplicateOf: result };
  if (Array.isArray(result)) return { debounceInto: result[1] };
  return result === 1 ? 'published' : result === 2 ? 'missed' : 'duplicate';
}

/** The reserve script's reply: the next due time (or ''), then id, body, delivery number per message. */
type ReserveReply = Array<string | number>;

function parseReserved(queue: string, reply: ReserveReply): Delivery[] {
  const deliveries: Delivery[] = [];
  for (let i = 1; i < reply.length; i += 3) {
    deliveries.push({ id: String(reply[i]), queue, body: String(reply[i + 1]), deliveries: Number(reply[i + 2]) });
  }
  return deliveries;
}

function groupByQueue(deliveries: readonly Delivery[]): Map<string, Delivery[]> {
  const byQueue = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    const list = byQueue.get(delivery.queue) ?? [];
    list.push(delivery);
    byQueue.set(delivery.queue, list);
  }
  return byQueue;
}

/**
 * A stored or announced revocation of `id` (taken from the text when undefined). Text written into
 * Redis by something else must not stop a worker from starting: a stored one that does not parse
 * still revokes its id, without terminate; an announcement without an id is dropped.
 */
function revocationOf(id: string, text: string): Revocation;
function revocationOf(id: undefined, text: string): Revocation | undefined;
function revocationOf(id: string | undefined, text: string): Revocation | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields =
    typeof parsed === 'object' && parsed !== null ? (parsed as Partial<Record<keyof Revocation, unknown>>) : {};
  const revoked = id ?? (typeof fields.id === 'string' && fields.id.length > 0 ? fields.id : undefined);
  if (revoked === undefined) return undefined;
  return { ...(fields as object), id: revoked, terminate: fields.terminate === true };
}

/** A dead letter's stored details; text written there by something else is shown as it is, not thrown on. */
function deadInfoOf(text: string): { body: string; reason: string; at: number; size?: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const info: { body: string; reason: string; at: number; size?: number } = {
    body: typeof fields.body === 'string' ? fields.body : text,
    reason: typeof fields.reason === 'string' ? fields.reason : 'unreadable dead-letter record',
    at: typeof fields.at === 'number' ? fields.at : 0,
  };
  if (typeof fields.size === 'number') info.size = fields.size;
  return info;
}
