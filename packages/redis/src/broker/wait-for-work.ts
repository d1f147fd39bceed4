/**
 * Idle workers' blocking wake-ups: a wait blocks (BZPOPMIN) on its queues' wake-up markers until a
 * publish sets one, the next delayed message is due, or the caller's signal ends it. No polling.
 */
import type { Delivery } from '@celeriac/core';
import { BlockingCallDropped } from '../connection/blocking-client';
import { corked } from '../connection/connection';
import { queueKeyList } from '../keys';
import { groupBySlot } from '../connection/key-slot';
import { isCluster } from '../connection/redis-client';
import { runScript } from '../scripting/scripts';
import { unavailable } from '../connection/unavailable';
import type { BrokerContext } from './broker-context';
import type { IdleHint } from './idle-hint';
import { parseReserved, type ReserveReply } from './reserve';

/** An idle worker re-checks at least this often, in case a wake-up was taken by a worker that died. */
const MAX_BLOCK_MS = 10_000;
/** Redis's own timeout of the wait: a fallback, should the local timer's CLIENT UNBLOCK not reach it. */
const BLOCK_TIMEOUT_MS = 2 * MAX_BLOCK_MS;
/** Past this, a wait that has not ended by itself drops its connection (see BlockingClient.call). */
const BLOCK_BOUND_MS = BLOCK_TIMEOUT_MS + 5_000;

/** How one blocking wait ended: the score of the marker that woke it, and what it reserved behind it. */
interface Woken {
  score: number | undefined;
  deliveries: Delivery[];
}

/** The waits of one broker's idle workers. */
export class WorkWaiter {
  constructor(
    private readonly context: BrokerContext,
    private readonly hint: IdleHint,
  ) {}

  /**
   * Sleeps until a wake-up marker, the next due time or the signal; with `count`, reserves from the first queue on
   * waking.
   */
  async wait(queues: readonly string[], count: number, signal: AbortSignal): Promise<Delivery[]> {
    const { connection, keys } = this.context;
    if (signal.aborted || this.context.isClosed()) return [];
    // A reserve that just found nothing already told the next due time; a message published since
    // then sets the wake-up marker, so the hint cannot make us miss it.
    const hint = this.hint.take(queues);
    let nextDue = hint ? hint.nextDue : await this.nextDue(queues);
    const markers = queues.map((queue) => keys.queue(queue).marker);
    // On a cluster, one wait blocks on the markers of one slot: queues in other slots get waits of their own.
    const groups = isCluster(connection.client) ? groupBySlot(markers, (marker) => marker) : [markers];
    for (;;) {
      if (signal.aborted || this.context.isClosed() || (nextDue !== undefined && nextDue <= Date.now())) return [];
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
  ): Promise<Woken> {
    const race = new AbortController();
    const endRace = () => race.abort();
    signal.addEventListener('abort', endRace, { once: true });
    const first = queue === undefined ? undefined : this.context.keys.queue(queue).marker;
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
  ): Promise<Woken> {
    const { connection, keys, settings } = this.context;
    const blocking = connection.acquireBlocking();
    // Ended by the caller's signal, or by a local timer at the next due time: Redis's own timeout
    // is coarse (~100 ms).
    const wake = new AbortController();
    const onAbort = () => wake.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) wake.abort();
    const timer = setTimeout(
      onAbort,
      Math.min(MAX_BLOCK_MS, nextDue === undefined ? MAX_BLOCK_MS : nextDue - Date.now()),
    );
    try {
      let reserving: Promise<ReserveReply> | undefined;
      const options = { via: connection.client, signal: wake.signal, key: markers[0], bound: BLOCK_BOUND_MS };
      const reply = await blocking.call(options, (client) => {
        const [popping, reserve] = corked(
          client,
          () =>
            [
              client.bzpopmin(...markers, BLOCK_TIMEOUT_MS / 1000),
              queue === undefined
                ? undefined
                : runScript<ReserveReply>(client, 'reserve', queueKeyList(keys.queue(queue)), [
                    '',
                    count,
                    settings.visibilityTimeout,
                  ]),
            ] as const,
        );
        reserving = reserve;
        reserving?.catch(() => undefined);
        return popping;
      });
      // Queued right behind the wait on the same connection: it runs the moment the wait ends (Redis's
      // clock sets its lease). A dropped connection leaves what it reserved to the lease's recovery.
      const reserved = (reserving ? await blocking.settle(reserving) : undefined) ?? [''];
      const deliveries = queue === undefined ? [] : parseReserved(queue, reserved);
      if (queue !== undefined && reserved[0] !== '+') {
        // The queue was emptied by this reservation: the next wait may start without asking again.
        const due = reserved[0] === '' || reserved[0] === undefined ? undefined : Number(reserved[0]);
        this.hint.set([queue], due);
      }
      return { score: reply ? Number(reply[2]) : undefined, deliveries };
    } catch (error) {
      // Ended on purpose, or its connection dropped (while Redis was away, or past its bound): the
      // caller's next reserve looks again, on a new connection.
      if (wake.signal.aborted || error instanceof BlockingCallDropped || this.context.isClosed()) {
        return { score: undefined, deliveries: [] };
      }
      throw unavailable(error, 'wait for work', connection);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      connection.releaseBlocking(blocking);
    }
  }

  /** The earliest due time of the delayed messages of `queues`, if any. */
  private async nextDue(queues: readonly string[]): Promise<number | undefined> {
    const { client } = this.context.connection;
    // One command a queue, in one write (not a pipeline: the queues may be in different slots of a cluster).
    const heads = await Promise.all(
      corked(client, () =>
        queues.map((queue) => client.zrange(this.context.keys.queue(queue).delayed, 0, 0, 'WITHSCORES')),
      ),
    );
    const dues = heads.filter((head) => head.length === 2).map((head) => Number(head[1]));
    return dues.length > 0 ? Math.min(...dues) : undefined;
  }
}
