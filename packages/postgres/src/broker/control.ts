/**
 * The control channel on PostgreSQL: a request is NOTIFYed on the control channel; every listening
 * worker answers by NOTIFYing its reply, tagged with the request's id, on the replies channel, which
 * the requester LISTENs on for the timeout (payloads too large for NOTIFY go through the notices
 * table). Pause marks are rows of their own, which the claim reads.
 */
import type { BroadcastOptions, ControlHandler, ControlReply, ControlRequest, ControlTransport } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { noticePayload, notify } from './notices';
import { workNotice } from './fragments';

/** A reply as it travels: the request it answers, and the reply. */
interface TaggedReply {
  readonly request: string;
  readonly reply: ControlReply;
}

/** The control seam of the PostgreSQL broker. */
export class PostgresControl implements ControlTransport {
  constructor(private readonly context: BrokerContext) {}

  async broadcast(request: ControlRequest, options: BroadcastOptions): Promise<ControlReply[]> {
    const { context } = this;
    const replies: ControlReply[] = [];
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    // Listening before sending: a reply can come back before the NOTIFY's own call returns.
    const stop = await context.connection.listener.listen(context.channels.replies, (notification) => {
      void noticePayload(context, notification).then((payload) => {
        const tagged = parse<TaggedReply>(payload);
        if (!tagged || tagged.request !== request.id || typeof tagged.reply?.hostname !== 'string') return;
        replies.push(tagged.reply);
        if (options.limit !== undefined && replies.length >= options.limit) finish();
      });
    });
    const timer = setTimeout(finish, options.timeout);
    try {
      await notify(context, context.channels.control, JSON.stringify(request));
      await done;
    } finally {
      clearTimeout(timer);
      await stop();
    }
    return replies.slice(0, options.limit);
  }

  onControl(handler: ControlHandler): Promise<() => Promise<void>> {
    const { context } = this;
    return context.connection.listener.listen(context.channels.control, (notification) => {
      void noticePayload(context, notification)
        .then(async (payload) => {
          const request = parse<ControlRequest>(payload);
          if (typeof request?.id !== 'string' || typeof request.command !== 'string') return;
          const reply = await handler(request as ControlRequest);
          if (!reply) return;
          const tagged: TaggedReply = { request: request.id, reply };
          await notify(context, context.channels.replies, JSON.stringify(tagged));
        })
        .catch(() => undefined);
    });
  }

  async pauseQueue(queue: string): Promise<void> {
    const { paused, queues } = this.context.tables;
    await this.context.connection.query(
      `WITH named AS (INSERT INTO ${queues} (name) VALUES ($1) ON CONFLICT DO NOTHING)
        INSERT INTO ${paused} (queue) VALUES ($1) ON CONFLICT DO NOTHING`,
      [queue],
    );
  }

  async resumeQueue(queue: string): Promise<void> {
    const { paused, now } = this.context.tables;
    // The notice wakes the workers waiting on the queue: what it holds may be ready now.
    await this.context.connection.query(
      `WITH resumed AS (DELETE FROM ${paused} WHERE queue = $1 RETURNING queue, ${now} AS run_at)
        SELECT ${workNotice(this.context, 'resumed')}`,
      [queue],
    );
  }

  async pausedQueues(queues: readonly string[]): Promise<string[]> {
    const rows = await this.context.connection.query<{ queue: string }>(
      `SELECT queue FROM ${this.context.tables.paused} WHERE queue = ANY($1::text[])`,
      [queues],
    );
    const paused = new Set(rows.map((row) => row.queue));
    return queues.filter((queue) => paused.has(queue));
  }

  async listQueues(): Promise<string[]> {
    const rows = await this.context.connection.query<{ name: string }>(
      `SELECT name FROM ${this.context.tables.queues} ORDER BY name`,
    );
    return rows.map((row) => row.name);
  }
}

function parse<T>(text: string | undefined): Partial<T> | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<T> | null;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
