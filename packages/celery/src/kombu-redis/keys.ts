/**
 * The key layout of kombu's Redis transport and Celery's Redis result backend, in one place. These
 * keys are Celery's, not Celeriac's: no hash tags (kombu has none), so the Celery protocol runs on a
 * single Redis, not on Redis Cluster.
 */

/** kombu's separator between a queue name and its priority step. */
export const PRIORITY_SEPARATOR = '\x06\x16';

/** kombu's default priority steps: a message of priority p goes to the list of the last step ≤ p. */
export const PRIORITY_STEPS = [0, 3, 6, 9] as const;

/** The keys a Celery-speaking broker reads and writes. */
export class CeleryKeys {
  /**
   * @param keyPrefix - kombu's `global_keyprefix`.
   * @param celeriacPrefix - the app's prefix, for what only Celeriac keeps (dead letters).
   * @param resultKeyPrefix - what Celery's result backend puts before its key names (see
   * {@link CeleryKeys.result}): none in Celery 5.2.
   */
  constructor(
    readonly keyPrefix: string,
    private readonly celeriacPrefix: string,
    readonly resultKeyPrefix: string = '',
  ) {}

  /** The hash of unacknowledged messages: delivery tag → `[payload, exchange, routing key]`. */
  get unacked(): string {
    return `${this.keyPrefix}unacked`;
  }

  /** The sorted set of delivery tags by delivery time (seconds), for the visibility timeout. */
  get unackedIndex(): string {
    return `${this.keyPrefix}unacked_index`;
  }

  /** The bindings of an exchange (`routing key␆␖pattern␆␖queue` members). */
  binding(exchange: string): string {
    return `${this.keyPrefix}_kombu.binding.${exchange}`;
  }

  /** The list of a queue's priority step (the step 0 list is the queue's own name). */
  queue(queue: string, step: number = 0): string {
    return step === 0 ? `${this.keyPrefix}${queue}` : `${this.keyPrefix}${queue}${PRIORITY_SEPARATOR}${step}`;
  }

  /** The list a message of `priority` (0–9) joins on `queue`: its priority step's. */
  queueFor(queue: string, priority: number): string {
    return this.queue(queue, priorityStep(priority));
  }

  /** A queue's lists in the order a worker takes them: step 0 first, as kombu does. */
  queueLists(queue: string): string[] {
    return PRIORITY_STEPS.map((step) => this.queue(queue, step));
  }

  /** The names of the queues published to (kombu keeps none; `listQueues` reads it). */
  get queues(): string {
    return `${this.celeriacPrefix}:celery-queues`;
  }

  /** Messages a Celeriac worker could not run (Celery has no dead-letter place on Redis). */
  dead(queue: string): string {
    return `${this.celeriacPrefix}:celery-dead:${queue}`;
  }

  /** The result key of a task in Celery's Redis backend (also the channel its changes are published on). */
  result(id: string): string {
    return `${this.resultKeyPrefix}celery-task-meta-${id}`;
  }

  /** Celery's chord keys of group `groupId`: the finished members, the extra count and the header size. */
  chord(groupId: string): { results: string; extra: string; size: string } {
    const base = `${this.resultKeyPrefix}celery-taskset-meta-${groupId}`;
    return { results: `${base}.j`, extra: `${base}.t`, size: `${base}.s` };
  }
}

/** The priority step of a Celery priority (0–9, clamped), as kombu picks it. */
export function priorityStep(priority: number): number {
  const clamped = Math.min(Math.max(Math.trunc(priority) || 0, 0), 9);
  let step: number = PRIORITY_STEPS[0];
  for (const candidate of PRIORITY_STEPS) if (candidate <= clamped) step = candidate;
  return step;
}
