/**
 * The `transaction` send option: a database client on which the caller ran `BEGIN`. A broker that
 * declares `transactionalPublish` stores the task through it, so the task exists only if the
 * caller's transaction commits.
 */

/**
 * Anything that runs one SQL statement with positional parameters (`$1`, `$2`, …) inside the
 * caller's open transaction: a node-postgres `Client` or `PoolClient` as it is, or a small adapter
 * over postgres.js, Kysely, Drizzle or Prisma (docs/postgres.md shows one for each).
 */
export interface TransactionClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}
