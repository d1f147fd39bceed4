/**
 * Sends the task of a claimed slot. The slot is this scheduler's once claimed, so a send that fails
 * (the broker is unreachable) is retried with the same task id until it is accepted or the
 * scheduler closes; the broker's idempotent publish makes a retry that raced a success harmless.
 */
import type { Clock } from './clock';
import type { ResolvedEntry } from './entries';
import type { BeatHost } from './host';
import type { BeatLogger } from './logger';

/** One firing, as the scheduler reports it. */
export interface FiredSlot {
  /** The entry's name. */
  readonly entry: string;
  /** The task sent. */
  readonly task: string;
  /** The slot (epoch ms) this firing is for. */
  readonly slot: number;
  /** The task id: `beat:<entry>:<slot>`. */
  readonly id: string;
  /** Milliseconds between the slot and the broker's acceptance of the task. */
  readonly late: number;
}

/** The task id of an entry's slot, the same in every scheduler process. */
export function slotTaskId(entry: string, slot: number): string {
  return `beat:${entry}:${slot}`;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/** Sends slots' tasks; keeps retrying failed sends in the background. */
export class SlotSender {
  private readonly retrying = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly host: BeatHost,
    private readonly clock: Clock,
    private readonly logger: BeatLogger,
    private readonly onFired: (fired: FiredSlot) => void,
  ) {}

  /** Sends once and resolves; a failed send goes on in the background. */
  async send(entry: ResolvedEntry, slot: number): Promise<void> {
    if (await this.attempt(entry, slot, 1)) return;
    const retry = this.retry(entry, slot).finally(() => this.retrying.delete(retry));
    this.retrying.add(retry);
  }

  /** Ends the retries (their slots stay unsent, and are logged). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.retrying]);
  }

  private async retry(entry: ResolvedEntry, slot: number): Promise<void> {
    for (let attempt = 2; !this.stopped; attempt += 1) {
      await new Promise<void>((resolve) => this.clock.setTimer(resolve, Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 2))));
      if (this.stopped) break;
      if (await this.attempt(entry, slot, attempt)) return;
    }
    this.logger.error({ entry: entry.name, slot: new Date(slot).toISOString(), id: slotTaskId(entry.name, slot) }, `The scheduler stopped before the task of ${entry.name} could be sent; this slot did not fire`);
  }

  private async attempt(entry: ResolvedEntry, slot: number, attempt: number): Promise<boolean> {
    const id = slotTaskId(entry.name, slot);
    try {
      await this.host.sendTask(entry.task, entry.args(), { ...entry.options, taskId: id }).sent;
    } catch (error) {
      this.logger.error({ entry: entry.name, task: entry.task, id, attempt, error: String(error) }, `Could not send the task of ${entry.name}; retrying`);
      return false;
    }
    const fired: FiredSlot = { entry: entry.name, task: entry.task, slot, id, late: this.clock.now() - slot };
    this.logger.info({ ...fired, slot: new Date(slot).toISOString() }, `Fired ${entry.name}`);
    this.onFired(fired);
    return true;
  }
}
