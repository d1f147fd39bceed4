/**
 * `app.failed`: the failed-task registry. Tasks that failed for good (after their retries) are kept
 * per queue with their message and error; they can be listed, shown, retried (sent again with the
 * same id and a fresh retry count) or discarded.
 */
import type { ResultBackend } from '../backend';
import type { Broker, FailedTask } from '../broker';
import { brokerSupports, type BrokerWith } from '../supports';
import { CeleriacError } from '../errors';
import type { TaskMessage } from '../message';

/** What the registry needs from the app. */
export interface FailedSource {
  readonly broker: Broker;
  readonly backend: ResultBackend;
  decode(body: string): TaskMessage;
  /** Sends a message again under its own id; resolves once the broker accepted it. */
  resend(message: TaskMessage): Promise<void>;
}

/** Which failed tasks: these ids (or `'all'`), in one queue or, without `queue`, in every queue. */
export type FailedSelection = string | readonly string[];

type RegistryBroker = BrokerWith<'failedRegistry'>;

/** The failed-task registry of an app. */
export class FailedTasks {
  constructor(private readonly source: () => FailedSource) {}

  /** Failed tasks, newest first: of one queue, or of every queue. */
  async list(options: { queue?: string; offset?: number; limit?: number } = {}): Promise<FailedTask[]> {
    const broker = this.broker();
    const offset = options.offset ?? 0;
    const limit = options.limit ?? 100;
    const lists = await Promise.all(
      (await this.queues(broker, options.queue)).map((queue) => broker.listFailed(queue, { limit: offset + limit })),
    );
    return lists
      .flat()
      .sort((a, b) => b.at - a.at)
      .slice(offset, offset + limit);
  }

  /** One failed task, or undefined when the registry does not hold it. */
  async show(id: string, options: { queue?: string } = {}): Promise<FailedTask | undefined> {
    return (await this.find([id], options.queue))[0];
  }

  /**
   * Sends failed tasks again, each under its own id with its retry count reset, and removes them
   * from the registry. Their old FAILURE record is forgotten first, so a waiter sees the new run.
   * Returns the ids sent.
   */
  async retry(selection: FailedSelection, options: { queue?: string } = {}): Promise<string[]> {
    const source = this.source();
    const tasks = await this.select(selection, options.queue);
    const sent: string[] = [];
    for (const task of tasks) {
      const message = source.decode(task.body);
      await source.backend.forget([task.id]);
      // Due now: a signed message is signed again and its replay window counts from now.
      await source.resend({ ...message, retries: 0, eta: Date.now() });
      await this.broker().discardFailed(task.queue, [task.id]);
      sent.push(task.id);
    }
    return sent;
  }

  /** Removes failed tasks from the registry for good. Returns how many went. */
  async discard(selection: FailedSelection, options: { queue?: string } = {}): Promise<number> {
    const broker = this.broker();
    if (selection === 'all') {
      const counts = await Promise.all(
        (await this.queues(broker, options.queue)).map((queue) => broker.discardFailed(queue)),
      );
      return counts.reduce((sum, count) => sum + count, 0);
    }
    const tasks = await this.select(selection, options.queue);
    let removed = 0;
    for (const task of tasks) removed += await broker.discardFailed(task.queue, [task.id]);
    return removed;
  }

  private async select(selection: FailedSelection, queue: string | undefined): Promise<FailedTask[]> {
    if (selection === 'all') return this.all(queue);
    return (await this.find(typeof selection === 'string' ? [selection] : selection, queue)).filter(
      (task): task is FailedTask => task !== undefined,
    );
  }

  private async all(queue: string | undefined): Promise<FailedTask[]> {
    const broker = this.broker();
    const found: FailedTask[] = [];
    for (const name of await this.queues(broker, queue)) {
      for (let offset = 0; ; offset += 1_000) {
        const page = await broker.listFailed(name, { offset, limit: 1_000 });
        found.push(...page);
        if (page.length < 1_000) break;
      }
    }
    return found;
  }

  /** The entries of `ids`, in their order, looked up in one queue or in every queue. */
  private async find(ids: readonly string[], queue: string | undefined): Promise<Array<FailedTask | undefined>> {
    const broker = this.broker();
    const found: Array<FailedTask | undefined> = ids.map(() => undefined);
    for (const name of await this.queues(broker, queue)) {
      const tasks = await broker.getFailed(name, ids);
      tasks.forEach((task, index) => (found[index] ??= task));
    }
    return found;
  }

  private async queues(broker: RegistryBroker, queue: string | undefined): Promise<string[]> {
    return queue === undefined ? broker.queueNames() : [queue];
  }

  private broker(): RegistryBroker {
    const { broker } = this.source();
    if (!brokerSupports(broker, 'failedRegistry')) {
      throw new CeleriacError(
        'CELERIAC_NO_FAILED_REGISTRY',
        `${broker.capabilities.transport} keeps no failed-task registry. Use the Redis or memory broker, which do.`,
      );
    }
    return broker;
  }
}
