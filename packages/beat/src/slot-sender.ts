/**
 * Sends the task of a claimed slot. A send that fails (the broker is unreachable) is retried with
 * the same task id while this scheduler leads; the broker's idempotent publish makes a retry that
 * raced a success harmless. Once the scheduler stops leading (by its own clock, which is before any
 * other scheduler can take the lease) it sends no more: the slot is then the next leader's, which
 * sends it again when its task left no record (see the scheduler's `resendClaimed`). Retrying on
 * after that could run the slot twice: once from the next leader's copy, which may have finished,
 * and once from this late one.
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

/** Why a slot is sent: its first firing, or again by a new leader (the claim left no record). */
export type SendKind = 'fired' | 'resent';

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
    /** True while this scheduler leads: retries stop when it turns false. */
    private readonly leading: () => boolean,
    private readonly onSent: (fired: FiredSlot, kind: SendKind) => void,
    /** Tells the beat store that the slot's task reached the broker (see BeatStore.settleClaim). */
    private readonly settle: (name: string, slot: number) => Promise<void>,
  ) {}

  /** Sends once and resolves; a failed send goes on in the background while this scheduler leads. */
  async send(entry: ResolvedEntry, slot: number, kind: SendKind = 'fired'): Promise<void> {
    if (await this.attempt(entry, slot, 1, kind)) return;
    const retry = this.retry(entry, slot, kind).finally(() => this.retrying.delete(retry));
    this.retrying.add(retry);
  }

  /** Ends the retries (their slots are left to the next leader, and logged). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.retrying]);
  }

  private async retry(entry: ResolvedEntry, slot: number, kind: SendKind): Promise<void> {
    for (let attempt = 2; !this.stopped && this.leading(); attempt += 1) {
      await new Promise<void>((resolve) =>
        this.clock.setTimer(resolve, Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 2))),
      );
      if (this.stopped || !this.leading()) break;
      if (await this.attempt(entry, slot, attempt, kind)) return;
    }
    this.logger.error(
      { entry: entry.name, slot: new Date(slot).toISOString(), id: slotTaskId(entry.name, slot) },
      `This scheduler stopped leading before the task of ${entry.name} could be sent; the next leader sends it if it ` +
        `takes over soon enough`,
    );
  }

  private async attempt(entry: ResolvedEntry, slot: number, attempt: number, kind: SendKind): Promise<boolean> {
    const id = slotTaskId(entry.name, slot);
    try {
      await this.host.sendTask(entry.task, entry.args(), { ...entry.options, taskId: id }).sent;
    } catch (error) {
      this.logger.error(
        { entry: entry.name, task: entry.task, id, attempt, error: String(error) },
        `Could not send the task of ${entry.name}; retrying`,
      );
      return false;
    }
    // Not settled (the store unreachable): a scheduler taking over may send it again, as before.
    await this.settle(entry.name, slot).catch((error: unknown) =>
      this.logger.debug({ entry: entry.name, id, error: String(error) }, `Could not settle the claim of ${entry.name}`),
    );
    const fired: FiredSlot = { entry: entry.name, task: entry.task, slot, id, late: this.clock.now() - slot };
    this.logger.info(
      { ...fired, slot: new Date(slot).toISOString() },
      kind === 'fired'
        ? `Fired ${entry.name}`
        : `Sent ${entry.name} again (claimed before this scheduler led, no record of it)`,
    );
    this.onSent(fired, kind);
    return true;
  }
}
