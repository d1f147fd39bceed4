/**
 * Vacuums a table this process churns, every so many rows it churned: a queue table turns over
 * thousands of rows a second, and autovacuum visits a database at most once a `autovacuum_naptime`
 * (a minute by default; never when a server runs with `autovacuum = off`). In between, dead row
 * versions pile up in the table and its indexes, every claim steps over them and the table only
 * grows. A VACUUM of a small table with a few thousand dead rows takes milliseconds and blocks no
 * reader or writer; `SKIP_LOCKED` lets a process whose peer is vacuuming the table skip its turn.
 * A role that does not own the table gets a warning from the server and nothing happens: autovacuum
 * then does the work alone.
 */
import type { PostgresConnection } from './postgres-connection';

/** Rows churned (claimed, deleted) between two vacuums of the table by this process. */
export const VACUUM_EVERY_ROWS = 5_000;

/** Counts the rows one table was churned by, and vacuums it each {@link VACUUM_EVERY_ROWS}. */
export class ChurnVacuum {
  private churned = 0;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly connection: PostgresConnection,
    /** The table, schema-qualified. */
    private readonly table: string,
    private readonly every = VACUUM_EVERY_ROWS,
  ) {}

  /** Counts `rows` more churned rows; starts a vacuum (never awaited) once enough have been. */
  note(rows: number): void {
    this.churned += rows;
    if (this.churned < this.every || this.running) return;
    this.churned = 0;
    this.running = this.connection
      .query(`VACUUM (SKIP_LOCKED) ${this.table}`)
      // The server may be away or busy: the next turn tries again, and autovacuum is still there.
      .catch(() => undefined)
      .finally(() => (this.running = undefined));
  }

  /** Waits for a vacuum under way (before the pool closes). */
  async idle(): Promise<void> {
    await this.running;
  }
}
