/**
 * The Redis broker's publish path: envelopes grouped by queue, cut into chunks of one script call
 * each, a few chunks in flight at a time, then (with replication) a wait for the replicas.
 */
import type { Envelope, PublishOutcome } from '@celeriac/core';
import { awaitReplicas } from '../connection/replication';
import { unavailable } from '../connection/unavailable';
import { queueScript, type BrokerContext } from './broker-context';

/** Most envelopes per publish script call, so one call never blocks Redis for long. */
const PUBLISH_CHUNK = 1_000;
/** Most publish script calls in flight at once for one publish. */
const PUBLISH_WINDOW = 4;

/** Publishes envelopes, and adds each queue it has not seen yet to the set of queue names. */
export class Publisher {
  private readonly knownQueues = new Set<string>();

  constructor(private readonly context: BrokerContext) {}

  /** Stores `envelopes` in their queues; one outcome per envelope, in their order. */
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
          queueScript<PublishReply>(this.context, 'publish', queue, publishArgs(now, chunk, envelopes)).then(
            (results) => {
              chunk.forEach((index, position) => (outcomes[index] = outcomeOf(results[position])));
            },
          ),
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
    const { connection, settings } = this.context;
    try {
      await Promise.all(calls);
      await awaitReplicas(connection.client, settings.replication, 'the published tasks');
    } catch (error) {
      throw unavailable(error, 'publish', connection);
    }
    return outcomes;
  }

  private async rememberQueue(queue: string): Promise<void> {
    await this.context.connection.client.sadd(this.context.keys.queues, queue);
    this.knownQueues.add(queue);
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
