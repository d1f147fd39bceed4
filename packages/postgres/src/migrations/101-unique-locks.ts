/** Step 101: the locks of unique tasks, one row per key, naming the task that holds it and until when. */
import type { Migration } from './migration';

/** The unique-lock table: whether a lock is alive is read from its holder's row in `messages`. */
export const UNIQUE_LOCKS: Migration = {
  id: 101,
  name: 'unique locks',
  sql: (s) => `
    CREATE TABLE ${s}.unique_locks (
      key text PRIMARY KEY,
      id text NOT NULL,
      -- UniqueLock['while']: 'queued', 'running', 'queued-or-running' or 'window'.
      mode text NOT NULL,
      expires_at bigint NOT NULL
    );
  `,
};
