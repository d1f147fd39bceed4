/**
 * PostgreSQL for tests: the server at `POSTGRES_URL` (the machine's, trust auth), a fresh prefix
 * (so a fresh schema) per test, and dropping only the schema a test made.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

/** The PostgreSQL the tests use: `CELERIAC_TEST_POSTGRES_URL`, or the machine's. */
export const POSTGRES_URL = process.env.CELERIAC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A prefix no other test uses; its schema is `schemaName(prefix)`, i.e. lower case with `_` for `-`. */
export function freshPostgresPrefix(label = 'test'): string {
  return `t_${label}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** Runs `work` with a client of its own on `url` (`POSTGRES_URL` unless given), closed afterwards. */
export async function withPostgres<T>(work: (client: Client) => Promise<T>, url = POSTGRES_URL): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Drops one schema a test made, and everything in it (on `url`: `POSTGRES_URL` unless given). */
export async function dropSchema(schema: string, url = POSTGRES_URL): Promise<void> {
  await withPostgres((client) => client.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`), url);
}
