/**
 * The Redis control channel: a request is PUBLISHed on `<prefix>:control`; every worker hears it on
 * its subscriber connection and RPUSHes its reply to a list named after the request, which the
 * requester pops with BLPOP until the timeout (or enough replies). Queue pause marks live in each
 * queue's meta hash, so the reserve script sees them atomically and they survive restarts.
 */
import type { BroadcastOptions, ControlHandler, ControlReply, ControlRequest, ControlTransport } from '@celeriac/core';
import { BlockingCallDropped } from '../connection/blocking-client';
import type { RedisConnection } from '../connection/connection';
import { KeySpace } from '../keys';
import { corked } from '../connection/connection';
import { publish } from '../connection/redis-client';
import { scriptKeys } from '../scripting/script-keys';
import { runScript } from '../scripting/scripts';
import { orUnavailable, unavailable } from '../connection/unavailable';

/** How long an unread reply list is kept, past the requester's own timeout. */
const REPLY_TTL_MS = 60_000;
/** How long past the requester's timeout a reply wait may take before its connection is dropped (ms). */
const REPLY_WAIT_MARGIN_MS = 5_000;

/** The control seam on Redis. */
export class RedisControl implements ControlTransport {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: KeySpace,
  ) {}

  async broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    const { client } = this.connection;
    const list = this.keys.controlReplies(request.id);
    await publish(client, this.keys.controlChannel, JSON.stringify(request)).catch((error: unknown) => {
      throw unavailable(error, 'send a control request to the workers', this.connection);
    });
    const replies: ControlReply[] = [];
    const deadline = Date.now() + options.timeout;
    const blocking = this.connection.acquireBlocking();
    try {
      while (options.limit === undefined || replies.length < options.limit) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const call = { via: client, key: list, bound: left + REPLY_WAIT_MARGIN_MS };
        const popped = await blocking.call(call, (blocked) => blocked.blpop(list, Math.max(0.01, left / 1000)));
        if (!popped) break;
        const reply = replyOf(popped[1]);
        if (reply) replies.push(reply);
      }
    } catch (error) {
      // Dropped past its bound (Redis went away meanwhile): the replies read so far are the answer.
      if (error instanceof BlockingCallDropped) return replies;
      throw unavailable(error, "read the workers' control replies", this.connection);
    } finally {
      this.connection.releaseBlocking(blocking);
    }
    await client.del(list).catch(() => undefined);
    return replies;
  }

  async onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    const { client } = this.connection;
    return this.connection.subscriber.subscribe(this.keys.controlChannel, (message) => {
      const request = requestOf(message);
      if (!request) return;
      void handler(request)
        .then(async (reply) => {
          if (!reply) return;
          const list = this.keys.controlReplies(request.id);
          await client.multi().rpush(list, JSON.stringify(reply)).pexpire(list, REPLY_TTL_MS).exec();
        })
        .catch(() => undefined);
    });
  }

  async pauseQueue(queue: string): Promise<void> {
    const { client } = this.connection;
    // Two slots on a cluster, so two commands: the mark first, then the name that lists the queue.
    await this.wrap(`pause queue ${queue}`, async () => {
      await client.hset(this.keys.queue(queue).meta, 'paused', '1');
      await client.sadd(this.keys.queues, queue);
    });
  }

  async resumeQueue(queue: string): Promise<void> {
    await this.wrap(`resume queue ${queue}`, () =>
      runScript(this.connection.client, 'resume', scriptKeys('resume', this.keys.queue(queue)), []),
    );
  }

  async pausedQueues(queues: readonly string[]): Promise<string[]> {
    if (queues.length === 0) return [];
    const { client } = this.connection;
    // One command a queue, in one write (the queues may be in different slots of a cluster).
    const results = await this.wrap('read which queues are paused', () =>
      Promise.all(corked(client, () => queues.map((queue) => client.hexists(this.keys.queue(queue).meta, 'paused')))),
    );
    return queues.filter((_, index) => results[index] === 1);
  }

  listQueues(): Promise<string[]> {
    return this.wrap('list the queues', () => this.connection.client.smembers(this.keys.queues));
  }

  /** Runs a Redis call, turning a lost connection into BrokerUnavailableError. */
  private wrap<T>(action: string, call: () => Promise<T>): Promise<T> {
    return orUnavailable(action, this.connection, call);
  }
}

/** A request as published; anything else on the channel is ignored. */
function requestOf(text: string): ControlRequest | undefined {
  const parsed = parse(text);
  return typeof parsed?.id === 'string' && typeof parsed.command === 'string'
    ? (parsed as unknown as ControlRequest)
    : undefined;
}

function replyOf(text: string): ControlReply | undefined {
  const parsed = parse(text);
  return typeof parsed?.hostname === 'string' ? (parsed as unknown as ControlReply) : undefined;
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
