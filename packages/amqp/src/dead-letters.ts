/**
 * Dead letters live in RabbitMQ, in a classic queue per Celeriac queue (`<prefix>.dead.<queue>`),
 * each with its reason and time in headers. Listing, requeueing and discarding read the whole queue
 * with basic.get on a channel of their own, settle what they chose, and close the channel: RabbitMQ
 * puts back the rest, in their order. Such a read hides the dead letters from another read for its
 * duration; dead-letter queues are small and operator-driven, which makes that acceptable.
 */
import type { Channel } from 'amqplib';
import type { DeadLetter } from '@celeriac/core';
import type { AmqpConnection } from './connection';
import type { QueueNames } from './names';
import { DEAD_AT_HEADER, readReceived, REASON_HEADER, type Received } from './received';
import type { AmqpWire } from './wire';

/** Most dead letters one call reads. */
const READ_LIMIT = 100_000;

/** A dead letter as read, with the message to settle it by. */
export interface ReadDead {
  readonly letter: DeadLetter;
  readonly received: Received;
}

/** Runs `use` with every dead letter of `names`, oldest first, on a channel closed afterwards. */
export async function withDeadLetters<T>(
  connection: AmqpConnection,
  names: QueueNames,
  wire: AmqpWire,
  use: (letters: ReadDead[], channel: Channel) => Promise<T>,
): Promise<T> {
  const model = await connection.open();
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    const letters: ReadDead[] = [];
    while (letters.length < READ_LIMIT) {
      const message = await channel.get(names.dead, { noAck: false });
      if (message === false) break;
      const received = readReceived(channel, message, names.queue, wire);
      letters.push({ letter: deadLetterOf(received), received });
    }
    return await use(letters, channel);
  } finally {
    await channel.close().catch(() => undefined);
  }
}

/** The headers a dead letter carries. */
export function deadHeaders(reason: string, at: number): Record<string, string | number> {
  return { [REASON_HEADER]: reason, [DEAD_AT_HEADER]: at };
}

function deadLetterOf(received: Received): DeadLetter {
  const headers = (received.message.properties.headers ?? {}) as Record<string, unknown>;
  const { id, queue, body } = received.delivery;
  return {
    id,
    queue,
    body,
    reason: headerText(headers[REASON_HEADER]),
    at: Number(headers[DEAD_AT_HEADER] ?? 0),
  };
}

/** A header value as text (amqplib hands strings over as strings, long ones as Buffers). */
function headerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return 'unknown';
}
