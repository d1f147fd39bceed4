/**
 * `app.queues`: the queues of an app, their counts, and pausing them. A paused queue keeps accepting
 * tasks, but no worker reserves from it until it is resumed; the mark is kept by the broker (in Redis
 * it survives restarts).
 */
import type { Broker, QueueStats } from '../broker';
import { brokerSupports, type BrokerWith } from '../supports';
import { brokerWith, type TransportSupport } from '../internal/transport-support';
import { controlOf } from './control-api';

/** One queue as `app.queues.list()` reports it. */
export interface QueueInfo extends QueueStats {
  readonly name: string;
  readonly paused: boolean;
  /** Tasks of the queue kept in the failed-task registry (absent when the broker keeps none). */
  readonly failed?: number;
}

/** One queue's counts (`failed` when the broker keeps a failed-task registry), without its paused mark. */
export async function readQueue(broker: Broker, name: string): Promise<Omit<QueueInfo, 'paused'>> {
  const [stats, failed] = await Promise.all([
    broker.stats(name),
    brokerSupports(broker, 'failedRegistry') ? broker.countFailed(name) : undefined,
  ]);
  return { name, ...stats, ...(failed === undefined ? {} : { failed }) };
}

/** Lists, pauses and resumes queues; reached as `app.queues`. */
export class Queues {
  constructor(
    private readonly broker: () => Broker,
    private readonly purgeQueue: (queue: string) => Promise<number>,
    private readonly support: () => TransportSupport,
  ) {}

  /** Every queue ever published to (and `extra` ones), with its counts and whether it is paused, by name. */
  async list(extra: readonly string[] = []): Promise<QueueInfo[]> {
    const broker = this.broker();
    const names = [...new Set([...(await controlOf(broker).listQueues()), ...extra])].sort();
    const paused = new Set(brokerSupports(broker, 'pause') ? await broker.pausedQueues(names) : []);
    return Promise.all(names.map(async (name) => ({ ...(await readQueue(broker, name)), paused: paused.has(name) })));
  }

  /** Stops workers reserving from `queue`; tasks sent to it wait. */
  async pause(queue: string): Promise<void> {
    await this.pausing('queue pause').pauseQueue(queue);
  }

  /** Lets workers reserve from `queue` again; waiting workers wake at once. */
  async resume(queue: string): Promise<void> {
    await this.pausing('queue resume').resumeQueue(queue);
  }

  /** True when `queue` is paused. */
  async isPaused(queue: string): Promise<boolean> {
    const broker = this.broker();
    return brokerSupports(broker, 'pause') && (await broker.pausedQueues([queue])).length > 0;
  }

  /** Removes every waiting and delayed task of `queue` (recorded as REVOKED); returns how many. Same as `app.purge`. */
  purge(queue: string): Promise<number> {
    return this.purgeQueue(queue);
  }

  private pausing(option: string): BrokerWith<'pause'> {
    return brokerWith(this.support(), this.broker(), 'pause', option);
  }
}
