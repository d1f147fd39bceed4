/** What a queue may be called: checked where a name comes in (a send, a worker's queues, the dashboard's actions). */

/** The rule of queue names, in words, for error messages. */
export const QUEUE_NAME_RULE = 'letters, digits, and . : _ - only';

/** True when `value` is a queue name a message may carry. */
export function isQueueName(value: unknown): value is string {
  return typeof value === 'string' && /^[\w.:-]+$/.test(value);
}
