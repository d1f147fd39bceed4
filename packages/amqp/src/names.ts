/**
 * Every name Celeriac gives a RabbitMQ object, in one place: a queue's ready queue, its dead-letter
 * queue, its delay levels, and the exchanges the delays route through. All live under the app's
 * `prefix`, so two apps (or two test runs) on one vhost never meet.
 */

/** How many delay levels there are: level k holds a message for 2^k ms (the longest, ~25 days). */
export const DELAY_LEVELS = 31;

/** The RabbitMQ names of one Celeriac queue. */
export interface QueueNames {
  /** The queue Celeriac names it by. */
  readonly queue: string;
  /** The ready queue workers consume. */
  readonly ready: string;
  /** Dead letters of the queue, read with basic.get by `listDead` and its siblings. */
  readonly dead: string;
  /** The delay level queues, level k at index k. */
  readonly delays: readonly string[];
}

/** The names of `queue` under `prefix`; `ready` is the queue its workers consume (the wire names it). */
export function queueNames(prefix: string, queue: string, ready = `${prefix}.${queue}`): QueueNames {
  return {
    queue,
    ready,
    dead: `${prefix}.dead.${queue}`,
    delays: Array.from({ length: DELAY_LEVELS }, (_, level) => `${prefix}.delay.${level}.${queue}`),
  };
}

/** The topic exchange of delay level `level` (shared by every queue of the prefix). */
export function delayExchange(prefix: string, level: number): string {
  return `${prefix}.delay.${level}`;
}

/** The topic exchange that hands delayed messages to their ready queue. */
export function deliveryExchange(prefix: string): string {
  return `${prefix}.delivered`;
}
