/**
 * A reply to a Celery remote-control command, sent as a Celery worker sends it: published on the
 * reply exchange (`reply.celery.pidbox`, direct) under the sender's routing key, so it lands in the
 * sender's reply queue, with the command's `ticket` header that the sender matches replies by.
 */
import type { Redis } from 'ioredis';
import type { MailboxReplyTo } from '../protocol/remote-control';
import { boundQueues } from './bindings';
import { fanoutMessage } from './fanout';
import type { CeleryKeys } from './keys';

/** Pushes `body` (`{ hostname: value }`) onto every queue bound to the reply's routing key. */
export async function sendMailboxReply(
  client: Redis,
  keys: CeleryKeys,
  replyTo: MailboxReplyTo,
  body: Record<string, unknown>,
): Promise<void> {
  const queues = await boundQueues(client, keys, replyTo.exchange, replyTo.routingKey);
  if (queues.length === 0) return; // the sender stopped collecting
  // The same envelope as a fanout message; on a direct exchange kombu pushes it onto the queue's list.
  const text = fanoutMessage(replyTo.exchange, replyTo.routingKey, body, {
    headers: { ticket: replyTo.ticket, clock: 0 },
    deliveryMode: 1,
  });
  const pipeline = client.pipeline();
  for (const queue of queues) pipeline.lpush(keys.queue(queue), text);
  await pipeline.exec();
}
