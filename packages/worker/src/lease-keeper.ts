/**
 * Keeps the leases of this worker's tasks alive, and returns lapsed tasks of dead workers to their
 * queues: one broker call each, every third of the visibility timeout. No monitor process needed.
 */
import {
  WorkerLostError,
  type Broker,
  type DeadLetter,
  type Delivery,
  type RemoteError,
  type StoreEntry,
} from '@celeriac/core';
import { MAX_TIMER_DELAY, toRemoteError, type TaskMessage } from '@celeriac/core/internal';
import type { Logger } from './logger';

/** What the keeper needs. */
export interface LeaseKeeperOptions {
  broker: Broker;
  /** The queues the worker consumes now (control commands change them): the ones swept. */
  queues: () => readonly string[];
  visibilityTimeout: number;
  resultTtl: number;
  /** The deliveries this worker holds right now. */
  held(): Iterable<Delivery>;
  /** Decodes a message body (undefined when it does not decode). */
  decode(body: string): TaskMessage | undefined;
  /** Told of each task a sweep dead-lettered (for its event), before its record is stored. */
  dead?: (dead: DeadLetter, message: TaskMessage | undefined) => void;
  /** Stores records (FAILURE of dead-lettered tasks). */
  store(entries: StoreEntry[]): Promise<void>;
  /** Settles what a dead-lettered task's workflow would have run after it (after its record is stored). */
  failed(message: TaskMessage, error: RemoteError): Promise<void>;
  logger: Logger;
}

/** Renews leases and recovers lapsed ones on a timer. */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  /** Dead-lettered tasks whose workflow is still to be settled (retried each sweep until it is). */
  private unsettled: Array<{ message: TaskMessage; error: RemoteError }> = [];

  constructor(private readonly options: LeaseKeeperOptions) {}

  /** Starts the timer; the first sweep runs at once so tasks of a crashed predecessor come back quickly. */
  start(): void {
    // Renewing sooner than needed is harmless; an interval past setInterval's limit would fire every 1 ms.
    const interval = Math.min(MAX_TIMER_DELAY, Math.max(250, Math.floor(this.options.visibilityTimeout / 3)));
    this.timer = setInterval(() => void this.tick(), interval);
    void this.tick();
  }

  /** Settles the workflows of dead-lettered tasks; those that fail (Redis away) wait for the next sweep. */
  private async settleWorkflows(): Promise<void> {
    const pending = this.unsettled;
    this.unsettled = [];
    const outcomes = await Promise.allSettled(pending.map(({ message, error }) => this.options.failed(message, error)));
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected')
        this.unsettled.push(pending[index] as { message: TaskMessage; error: RemoteError });
    });
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One renewal and recovery round; safe to call any time. */
  tick(): Promise<void> {
    this.running ??= this.sweep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweep(): Promise<void> {
    const { broker, logger } = this.options;
    const queues = this.options.queues();
    try {
      const held = [...this.options.held()];
      const [, report] = await Promise.all([
        held.length > 0 ? broker.extendLeases(held) : undefined,
        broker.recoverLapsed(queues),
      ]);
      if (report.requeued.length > 0) {
        logger.warn(
          { ids: report.requeued },
          `Requeued ${report.requeued.length} task(s) whose worker stopped renewing its lease`,
        );
      }
      if (report.dead.length > 0) {
        const failures = report.dead.map((dead) => ({
          dead,
          message: this.options.decode(dead.body),
          error: toRemoteError(new WorkerLostError(`Task ${dead.id} was dead-lettered: ${dead.reason}.`)),
        }));
        for (const { dead, message } of failures) this.options.dead?.(dead, message);
        const entries = failures.map(({ dead, message, error }): StoreEntry => {
          const entry: StoreEntry = {
            record: { id: dead.id, state: 'FAILURE', error, date: Date.now() },
            ttl: this.options.resultTtl,
          };
          // The sender's channel, so it hears of the failure.
          if (message?.replyTo !== undefined) entry.replyTo = message.replyTo;
          return entry;
        });
        await this.options.store(entries);
        for (const { message, error } of failures) if (message?.workflow) this.unsettled.push({ message, error });
        logger.error(
          { ids: report.dead.map((dead) => dead.id) },
          `Dead-lettered ${report.dead.length} task(s) delivered too often`,
        );
      }
      await this.settleWorkflows();
    } catch (error) {
      logger.warn({ error: toRemoteError(error) }, 'Lease renewal failed; will retry');
    }
  }
}
