import type { Pool } from 'pg';
import { quoted } from '../connection/schema-name';
import type { Migration } from './migration';

/**
 * Brings `schema` up to date with `migrations`, safe when many processes start at once: one
 * transaction holds an advisory lock on the schema's name, creates the schema and its `migrations`
 * table if missing, and applies the steps not yet recorded, in order. A process that waited for the
 * lock finds them applied and does nothing. Returns the ids it applied.
 */
export async function migrate(pool: Pool, schema: string, migrations: readonly Migration[]): Promise<number[]> {
  const name = quoted(schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`celeriac-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${name}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${name}.migrations (
         id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ id: number }>(`SELECT id FROM ${name}.migrations`);
    const done = new Set(rows.map((row) => row.id));
    const applied: number[] = [];
    for (const step of [...migrations].sort((a, b) => a.id - b.id)) {
      if (done.has(step.id)) continue;
      await client.query(step.sql(name));
      await client.query(`INSERT INTO ${name}.migrations (id, name) VALUES ($1, $2)`, [step.id, step.name]);
      applied.push(step.id);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
