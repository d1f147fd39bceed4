/**
 * Deletes expired results and group counters in small batches, on a timer that every process with a
 * backend runs (so no separate process is needed). Each batch is one short statement through the
 * expiry index (`DELETE … WHERE ctid = ANY(ARRAY(SELECT … LIMIT n FOR UPDATE SKIP LOCKED))`): no
 * full scan, no long lock, and two processes sweeping at once take different rows. Readers skip
 * expired rows anyway, so a sweep that runs late only costs space.
 */
import { ChurnVacuum } from '../connection/churn-vacuum';
import type { PostgresConnection } from '../connection/postgres-connection';

/** What a sweep removed. */
export interface SweepReport {
  /** Expired result rows deleted. */
  readonly results: number;
  /** Expired group counters deleted. */
  readonly groups: number;
  /** The statements it took. */
  readonly batches: number;
}

/** The tables swept, each with its expiry index. */
const TABLES = ['results', 'group_counters'] as const;

/** Sweeps one schema's expired rows every `interval` ms (with a little jitter), `batch` rows a statement. */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** Deleted rows stay in the tables as dead versions until a vacuum: one per table, as it churns. */
  private readonly vacuums: Record<(typeof TABLES)[number], ChurnVacuum>;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly interval: number,
    private readonly batch: number,
  ) {
    const vacuum = (table: string) => new ChurnVacuum(connection, `${connection.schema}.${table}`);
    this.vacuums = { results: vacuum('results'), group_counters: vacuum('group_counters') };
  }

  /** Starts the timer (it never keeps the process alive). */
  start(): void {
    if (this.timer || this.stopped || this.interval <= 0) return;
    // Jitter, so that processes started together do not sweep together.
    const delay = this.interval * (0.8 + Math.random() * 0.4);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.sweep()
        .catch(() => undefined) // The server may be away: the next round tries again.
        .finally(() => {
          this.running = undefined;
          this.start();
        });
    }, delay);
    this.timer.unref();
  }

  /** Deletes every row expired now, in batches; resolves with what it removed. */
  async sweep(): Promise<SweepReport> {
    const counts = { results: 0, group_counters: 0 };
    let batches = 0;
    for (const table of TABLES) {
      for (;;) {
        if (this.stopped) break;
        const rows = await this.connection.query<{ n: number }>(
          `WITH gone AS (
             DELETE FROM ${this.connection.schema}.${table}
             WHERE ctid = ANY(ARRAY(
               SELECT ctid FROM ${this.connection.schema}.${table}
               WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED))
             AND expires_at <= now()
             RETURNING 1)
           SELECT count(*)::int AS n FROM gone`,
          [this.batch],
        );
        batches += 1;
        const deleted = rows[0]?.n ?? 0;
        counts[table] += deleted;
        this.vacuums[table].note(deleted);
        if (deleted < this.batch) break;
      }
    }
    return { results: counts.results, groups: counts.group_counters, batches };
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(Object.values(this.vacuums).map((vacuum) => vacuum.idle()));
  }
}
