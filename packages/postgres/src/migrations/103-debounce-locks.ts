/** Step 103: debounce windows, one row per key naming the task that waits out the window. */
import type { Migration } from './migration';

/** The debounce-lock table: honoured only while its task still waits (see debounce-lock.ts). */
export const DEBOUNCE_LOCKS: Migration = {
  id: 103,
  name: 'debounce locks',
  sql: (s) => `
    CREATE TABLE ${s}.debounce_locks (key text PRIMARY KEY, id text NOT NULL, expires_at bigint NOT NULL);
  `,
};
