/**
 * Step 200: the results table, one row per task id. Readers ignore rows past `expires_at`; the
 * expiry sweeper (backend/expiry-sweeper.ts) deletes them in small batches through the index.
 */
import type { Migration } from './migration';

/** The results table and its expiry index. */
export const RESULTS_MIGRATION: Migration = {
  id: 200,
  name: 'results',
  sql: (schema) => `
    CREATE TABLE ${schema}.results (
      id text PRIMARY KEY,
      state text NOT NULL,
      -- A ready state (SUCCESS, FAILURE, REVOKED): one in between never replaces it.
      final boolean NOT NULL,
      -- The record as the app's codec wrote it (superjson's JSON): queryable with ->, ->>.
      record json NOT NULL,
      expires_at timestamptz NOT NULL
    ) WITH (
      -- Room on each page for the next version of a row (STARTED, then SUCCESS), and vacuum kept
      -- frequent: every task updates its row a few times and expired rows are deleted in batches.
      fillfactor = 80,
      autovacuum_vacuum_scale_factor = 0.02,
      autovacuum_analyze_scale_factor = 0.05
    );
    CREATE INDEX results_expires_at ON ${schema}.results (expires_at);
  `,
};
