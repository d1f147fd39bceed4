/**
 * Step 300: the beat store. The scheduler's lease is one row (its owner and until when); each entry's
 * last fired slot is a row changed by compare-and-set (a slot is fired once: only a later slot
 * replaces it); the entries added at run time are rows of JSON text.
 */
import type { Migration } from './migration';

/** The beat lease, slots and runtime entries tables. */
export const BEAT_MIGRATION: Migration = {
  id: 300,
  name: 'beat store',
  sql: (schema) => `
    CREATE TABLE ${schema}.beat_lease (
      name text PRIMARY KEY,
      owner text NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE TABLE ${schema}.beat_slots (
      name text PRIMARY KEY,
      -- The last fired slot (epoch ms), or the starting point syncSlots set.
      slot bigint NOT NULL,
      -- The schedule it counts for; another one starts the entry over.
      fingerprint text,
      -- When the slot was claimed (epoch ms, the claiming scheduler's clock); null for a starting point.
      claimed_at bigint
    );
    CREATE TABLE ${schema}.beat_entries (
      name text PRIMARY KEY,
      entry text NOT NULL
    );
  `,
};
