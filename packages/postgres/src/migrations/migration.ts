/**
 * One step of Celeriac's schema. Steps only add (tables, columns with defaults, indexes built
 * `CONCURRENTLY` outside the step when large): a worker of the release before keeps running beside
 * one of the release after, so an upgrade never needs the workers stopped (docs/postgres.md).
 */
export interface Migration {
  /** Its place in the order; never reused or renumbered once released. */
  readonly id: number;
  /** What it adds, for the migrations table and logs. */
  readonly name: string;
  /** The statements, for the schema `schema` (already quoted). */
  sql(schema: string): string;
}
