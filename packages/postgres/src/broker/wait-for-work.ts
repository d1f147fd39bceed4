/**
 * Waiting for work without polling. Every waiting call of one broker shares the process's LISTEN on
 * the work channel. A wait registers itself, then reads the next due time of its queues once: work
 * already due ends it at once, a later due time sets a timer. After that only a notification (a
 * publish, requeue, recovery or resume: `{ q, at }` per queue) or the timer ends it, or its signal,
 * or the broker closing. When the listening session reconnects, notifications may have been missed:
 * every wait ends, and its caller reads again.
 *
 * States of one wait: registered → (due now | timer set | nothing due) → ended.
 */
import { HELD } from '../migrations/102-flow-control';
import type { BrokerContext } from './broker-context';

/** Node's longest timer, in ms: a due time further off sets the timer this far, and the wait then ends early. */
const MAX_TIMER_MS = 2_147_483_647;

/** One pending wait. */
interface Waiter {
  readonly queues: ReadonlySet<string>;
  /** Ends the wait now. */
  end(): void;
  /** Work of one of its queues comes due at `at` (epoch ms): end now, or set the timer sooner. */
  dueAt(at: number): void;
}

/** A queue and its earliest due time, as the work notice lists them. */
interface DueQueue {
  readonly q: string;
  readonly at: number;
}

/** The waits of one broker. */
export class WorkWaits {
  private readonly waiters = new Set<Waiter>();
  private listening: Promise<() => Promise<void>> | undefined;
  private stopResume: (() => void) | undefined;
  private closed = false;
  /** The server's clock minus this process's, as last read (due times in notices are the server's). */
  private skew = 0;

  constructor(private readonly context: BrokerContext) {}

  /** Resolves when work may be ready in `queues`, when `signal` aborts, or when the broker closes. */
  async wait(queues: readonly string[], signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed) return;
    await this.listen();
    let timer: NodeJS.Timeout | undefined;
    let timerAt = Infinity;
    let end = () => {};
    const ended = new Promise<void>((resolve) => (end = resolve));
    const waiter: Waiter = {
      queues: new Set(queues),
      end,
      dueAt: (at) => {
        const delay = at - Date.now();
        if (delay <= 0) return end();
        if (at >= timerAt) return;
        clearTimeout(timer);
        timerAt = at;
        timer = setTimeout(end, Math.min(delay, MAX_TIMER_MS));
      },
    };
    const onAbort = () => end();
    signal.addEventListener('abort', onAbort, { once: true });
    this.waiters.add(waiter);
    try {
      // Registered first, read second: a publish between the two still ends the wait.
      this.nextDue(queues).then(
        (at) => at !== undefined && waiter.dueAt(at),
        () => end(),
      );
      if (signal.aborted || this.closed) end();
      await ended;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.waiters.delete(waiter);
    }
  }

  /** Ends every wait and stops listening. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters) waiter.end();
    this.stopResume?.();
    const listening = this.listening;
    this.listening = undefined;
    await listening?.then((stop) => stop()).catch(() => undefined);
  }

  /** The earliest due time among the waiting messages of unpaused `queues`, in this process's clock. */
  private async nextDue(queues: readonly string[]): Promise<number | undefined> {
    const { messages, paused, now } = this.context.tables;
    const [row] = await this.context.connection.query<{ at: string | null; now: string }>(
      `SELECT min(run_at) AS at, ${now} AS now FROM ${messages}
        WHERE queue = ANY($1::text[]) AND lease_until IS NULL AND run_at < ${HELD}
          AND queue NOT IN (SELECT queue FROM ${paused} WHERE queue = ANY($1::text[]))`,
      [queues],
    );
    if (!row) return undefined;
    // Due times are on the server's clock; the timer runs on this one.
    this.skew = Number(row.now) - Date.now();
    if (row?.at === null || row?.at === undefined) return undefined;
    return Number(row.at) - this.skew;
  }

  private listen(): Promise<unknown> {
    if (!this.listening) {
      const { listener } = this.context.connection;
      this.stopResume = listener.onResume(() => this.waiters.forEach((waiter) => waiter.end()));
      this.listening = listener.listen(this.context.channels.work, (payload) => this.dispatch(payload));
      this.listening.catch(() => (this.listening = undefined));
    }
    return this.listening;
  }

  private dispatch(payload: string): void {
    const due = dueQueues(payload);
    for (const waiter of this.waiters) {
      if (due === 'all') waiter.end();
      else for (const { q, at } of due) if (waiter.queues.has(q)) waiter.dueAt(at - this.skew);
    }
  }
}

/** The queues a work notice names, or `'all'` when it names every queue (or cannot be read). */
function dueQueues(payload: string): DueQueue[] | 'all' {
  if (payload === '*') return 'all';
  try {
    const parsed: unknown = JSON.parse(payload);
    return Array.isArray(parsed) ? (parsed as DueQueue[]) : 'all';
  } catch {
    return 'all';
  }
}
