/**
 * Step 202: the event log. Ids come from a sequence taken under an advisory lock held to the end of
 * the writing transaction, so ids grow in commit order and a reader that resumes after the last id
 * it saw misses nothing. `ms` is the server's time of the write, for cursors made from a time.
 */
import type { Migration } from './migration';

/** The events table. */
export const EVENTS_MIGRATION: Migration = {
  id: 202,
  name: 'event log',
  sql: (schema) => `
    CREATE TABLE ${schema}.events (
      id bigserial PRIMARY KEY,
      ms bigint NOT NULL,
      event json NOT NULL
    ) WITH (autovacuum_vacuum_scale_factor = 0.05);
    CREATE INDEX events_ms ON ${schema}.events (ms);
  `,
};
