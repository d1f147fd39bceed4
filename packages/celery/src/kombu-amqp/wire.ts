/**
 * Celery protocol v2 on RabbitMQ, as kombu's AMQP transport (py-amqp) lays it out: a task message is
 * published to the default exchange with its queue's name as routing key, into a durable queue of
 * that very name (Celery's `celery` by default), its task headers as AMQP headers, its body the JSON
 * `[args, kwargs, embed]`, `correlation_id` its id. Python Celery workers and Celeriac workers then
 * consume the same queue. What only Celeriac adds (delay levels, dead letters, lease renewals) lives
 * under the app's prefix, where Python never looks: a message with an eta waits in the delay levels
 * and comes back to the shared queue when due, for either side to run.
 */
import type { AmqpMessage, AmqpWire, WireMessage, WireReading } from '@celeriac/amqp';
import type { Codec, StoreEntry } from '@celeriac/core';
import { decodeMessage, encodeMessage, isReadyState } from '@celeriac/core/internal';
import { decodeBody, fromCeleryPayload, toCeleryPayload } from '../protocol/message';
import { toCeleryMeta } from '../protocol/result';
import { JSON_CONTENT_TYPE, type CeleryEmbed, type CeleryHeaders, type CeleryPayload } from '../protocol/payload';
import type { CeleryWorkflow, FollowUp } from '../protocol/workflow';
import { CELERY_AMQP } from './capabilities';

/** What a read message leaves for {@link CeleryAmqpWire.leased}: its workflow fields, and its reply queue. */
interface ReadWorkflow {
  readonly id: string;
  readonly rootId: string;
  readonly embed: CeleryEmbed | undefined;
  readonly headers: CeleryHeaders;
  /** The queue a Python caller reading results with `rpc://` waits on (its `reply_to`). */
  readonly replyTo: string | undefined;
}

/** A result to send to a Python caller's reply queue, as Celery's `rpc://` backend sends it. */
export interface RpcReply {
  readonly routingKey: string;
  readonly correlationId: string;
  readonly content: Buffer;
}

/** The Celery wire of `AmqpTransport` (see `@celeriac/amqp`'s `AmqpWire`). */
export class CeleryAmqpWire implements AmqpWire {
  readonly transport = CELERY_AMQP;
  /** The workflow fields of the messages read, until they are leased (or dropped with them). */
  private readonly readings = new WeakMap<AmqpMessage, ReadWorkflow>();
  /** Embeds of follow-ups being sent (see {@link send}), by task id, taken when encoded. */
  private readonly sending = new Map<string, CeleryEmbed>();
  /** The reply queues of the tasks leased here that Python sent, until their result is sent. */
  private readonly replyQueues = new Map<string, string>();

  constructor(
    private readonly codec: Codec,
    private readonly workflow: CeleryWorkflow,
  ) {}

  /** The shared queue is the one Python names: no prefix, so both sides consume it. */
  readyQueue(_prefix: string, queue: string): string {
    return queue;
  }

  encode(body: string, previous?: AmqpMessage): WireMessage {
    const message = decodeMessage(this.codec, body);
    // A retry or a lost delivery keeps what runs after the task (a Celery chain, callbacks).
    const embed = this.takeSending(message.id) ?? (previous ? embedOf(previous) : undefined);
    return wireMessage(toCeleryPayload(this.codec, message, embed, 'text'));
  }

  copy(message: AmqpMessage): WireMessage {
    const { properties } = message;
    return {
      content: message.content,
      headers: celeryHeaders(properties.headers),
      contentType: typeof properties.contentType === 'string' ? properties.contentType : JSON_CONTENT_TYPE,
      contentEncoding: stringOrUndefined(properties.contentEncoding),
      correlationId: stringOrUndefined(properties.correlationId),
      replyTo: stringOrUndefined(properties.replyTo),
    };
  }

  read(message: AmqpMessage, queue: string): WireReading {
    let embed: CeleryEmbed | undefined;
    const payload = payloadOf(message);
    const task = fromCeleryPayload(this.codec, payload, queue, (found) => (embed = found));
    const rootId = task.rootId ?? task.id;
    // Celeriac's own senders wait on their result backend; a Python sender may wait on its reply queue.
    const fromPython = payload.headers.x_celeriac === undefined && payload.properties.reply_to !== '';
    const replyTo = fromPython ? payload.properties.reply_to : undefined;
    if (embed || replyTo) this.readings.set(message, { id: task.id, rootId, embed, headers: payload.headers, replyTo });
    return { id: task.id, body: encodeMessage(this.codec, task), eta: task.eta };
  }

  leased(message: AmqpMessage): void {
    const read = this.readings.get(message);
    if (read?.embed) this.workflow.remember(read.id, read.rootId, read.embed, read.headers);
    if (read?.replyTo) this.replyQueues.set(read.id, read.replyTo);
  }

  /**
   * The results to send to Python callers' reply queues among `entries` (records just stored): a
   * final state of a task Python sent, as Celery's `rpc://` backend sends it (the result meta,
   * `correlation_id` the task id). Without such a caller the message goes nowhere: RabbitMQ drops
   * what no queue takes on the default exchange, as a Celery worker's reply to a caller that left.
   */
  rpcReplies(entries: readonly StoreEntry[]): RpcReply[] {
    const replies: RpcReply[] = [];
    for (const { record, resultJson } of entries) {
      const routingKey = this.replyQueues.get(record.id);
      if (routingKey === undefined || !isReadyState(record.state)) continue;
      this.replyQueues.delete(record.id);
      const content = Buffer.from(toCeleryMeta(record, this.codec, resultJson));
      replies.push({ routingKey, correlationId: record.id, content });
    }
    return replies;
  }

  /**
   * Sends follow-ups (a Python chain's next step, callbacks, a chord's body) through `publish`, each
   * with its own embed (the rest of the chain), which a Celeriac message body does not carry.
   */
  async send(
    followUps: readonly FollowUp[],
    publish: (envelopes: Array<{ id: string; queue: string; priority: number; body: string }>) => Promise<unknown>,
  ): Promise<void> {
    for (const { message, embed } of followUps) this.sending.set(message.id, embed);
    try {
      await publish(
        followUps.map(({ message, queue, priority }) => ({
          id: message.id,
          queue,
          priority,
          body: encodeMessage(this.codec, message),
        })),
      );
    } finally {
      for (const { message } of followUps) this.sending.delete(message.id);
    }
  }

  private takeSending(id: string): CeleryEmbed | undefined {
    const embed = this.sending.get(id);
    this.sending.delete(id);
    return embed;
  }
}

/** The AMQP message of a Celery payload whose body is the JSON text: the body as bytes, headers as headers. */
function wireMessage(payload: CeleryPayload): WireMessage {
  return {
    content: Buffer.from(payload.body, 'utf8'),
    headers: withoutUndefined(payload.headers),
    contentType: payload['content-type'],
    contentEncoding: payload['content-encoding'],
    correlationId: payload.properties.correlation_id,
    replyTo: payload.properties.reply_to === '' ? undefined : payload.properties.reply_to,
  };
}

/** A received message as the Celery payload `fromCeleryPayload` reads (the body as text). */
function payloadOf(message: AmqpMessage): CeleryPayload {
  const { properties, fields } = message;
  return {
    body: message.content.toString('utf8'),
    'content-encoding': stringOrUndefined(properties.contentEncoding) ?? 'utf-8',
    'content-type': stringOrUndefined(properties.contentType) ?? '',
    headers: celeryHeaders(properties.headers) as CeleryHeaders,
    properties: {
      correlation_id: stringOrUndefined(properties.correlationId) ?? '',
      reply_to: stringOrUndefined(properties.replyTo) ?? '',
      delivery_mode: typeof properties.deliveryMode === 'number' ? properties.deliveryMode : 2,
      delivery_info: { exchange: fields.exchange, routing_key: fields.routingKey },
      priority: typeof properties.priority === 'number' ? properties.priority : 0,
      // No body_encoding: the body is the JSON text itself on AMQP (base64 is kombu's Redis transport's).
      delivery_tag: String(fields.deliveryTag),
    },
  };
}

/** The embed of a message read earlier (`[args, kwargs, embed]`), or none when it cannot be read. */
function embedOf(message: AmqpMessage): CeleryEmbed | undefined {
  try {
    return decodeBody(message.content.toString('utf8'), undefined)[2];
  } catch {
    return undefined;
  }
}

/**
 * The task headers of a received message, without the transport's own (`x-*`: RabbitMQ's
 * `x-death`, Celeriac's `x-celeriac-*`, which the transport sets afresh) and with byte strings as text.
 */
function celeryHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.startsWith('x-')) continue;
    kept[name] = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  }
  return kept;
}

function withoutUndefined(headers: CeleryHeaders): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
