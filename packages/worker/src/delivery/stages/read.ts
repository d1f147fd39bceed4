/**
 * The read stage: reads a delivery's message once, when the worker reserves it, and says the task was
 * received. The worker then knows the task it holds (for `inspect reserved`) before a slot runs it,
 * and the later stages use the same reading; what cannot be read is refused when its slot comes.
 */
import { InvalidMessageError, type Delivery } from '@celeriac/core';
import type { TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../../run-context';

/** What a delivery holds: its message, or why it cannot be run. */
export type DeliveryReading =
  | { readonly kind: 'message'; readonly message: TaskMessage }
  /** Over `maxMessageSize`, by this many bytes in all: left unread. */
  | { readonly kind: 'too-large'; readonly size: number }
  | { readonly kind: 'unreadable'; readonly error: unknown };

/** Reads `delivery`'s message, checked as a message to run (signature, id); emits `task-received`. */
export function readDelivery(run: RunContext, delivery: Delivery): DeliveryReading {
  const reading = readingOf(run, delivery);
  if (reading.kind === 'message') run.events.emit('task-received', reading.message, { delivery: delivery.deliveries });
  return reading;
}

function readingOf({ app }: RunContext, delivery: Delivery): DeliveryReading {
  const size = oversized(delivery.body, app.options.maxMessageSize);
  if (size !== undefined) return { kind: 'too-large', size };
  try {
    const message = app.decode(delivery.body, delivery.id);
    // Records and acks go by the queued id: a message queued under another id would settle one
    // task's entry with another task's record (a signed one is refused as a replay in decode).
    if (message.id !== delivery.id)
      throw new InvalidMessageError(
        `id must be the id it is queued under (${JSON.stringify(delivery.id)}), not ${JSON.stringify(message.id)}`,
      );
    return { kind: 'message', message };
  } catch (error) {
    return { kind: 'unreadable', error };
  }
}

/**
 * The size in bytes of a body over `limit`, else undefined. Only a body longer than a third of the
 * limit is measured: a UTF-16 character takes at most 3 bytes in UTF-8.
 */
function oversized(body: string, limit: number): number | undefined {
  if (body.length * 3 <= limit) return undefined;
  const size = Buffer.byteLength(body);
  return size > limit ? size : undefined;
}
