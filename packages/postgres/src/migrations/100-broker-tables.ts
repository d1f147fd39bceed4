/**
 * Step 100: the broker's tables. `messages` is the hot table: only waiting and leased messages live
 * in it (an ack deletes the row), so the claim reads a table as small as the backlog whatever the
 * history holds. Everything else (dead letters, the failed registry, revocations, worker records,
 * large notices) lives in tables of its own that the claim never reads.
 */
import type { Migration } from './migration';

/**
 * Vacuum settings of the hot table: a fixed threshold instead of a fraction of the table (a small
 * table churned thousands of times a second must be vacuumed often, not when 20 % of it is dead),
 * and no cost delay, so a vacuum keeps up. Room left in each page lets a lease update stay in it.
 */
const HOT_TABLE_STORAGE = `fillfactor = 80,
  autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000,
  autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000,
  autovacuum_vacuum_cost_delay = 0`;

/** The broker's tables, indexes and the clock function the statements share. */
export const BROKER_TABLES: Migration = {
  id: 100,
  name: 'broker tables',
  sql: (s) => `
    -- Epoch milliseconds by the server's clock (leases and due times are compared on one clock).
    CREATE FUNCTION ${s}.now_ms() RETURNS bigint LANGUAGE sql STABLE
      AS $$ SELECT (extract(epoch FROM now()) * 1000)::bigint $$;

    CREATE TABLE ${s}.messages (
      id text PRIMARY KEY,
      queue text NOT NULL,
      priority smallint NOT NULL DEFAULT 0,
      -- Publish order, for first in first out within a priority.
      seq bigint GENERATED ALWAYS AS IDENTITY,
      -- Epoch ms from which it may be leased (its eta, or a retry's due time).
      run_at bigint NOT NULL,
      body text NOT NULL,
      -- 1 on the first delivery; raised each time a lost lease brings it back.
      deliveries integer NOT NULL DEFAULT 1,
      -- Null while waiting; while leased, the epoch ms its lease lapses.
      lease_until bigint,
      -- The message's flow-control limits (MessageLimits), when it has any.
      limits jsonb
    ) WITH (${HOT_TABLE_STORAGE});
    -- The claim: waiting rows of a queue in lease order.
    CREATE INDEX messages_waiting ON ${s}.messages (queue, priority DESC, seq) WHERE lease_until IS NULL;
    -- The next due time a waiting worker sets its timer to, and the delayed count.
    CREATE INDEX messages_due ON ${s}.messages (queue, run_at) WHERE lease_until IS NULL;
    -- Lapsed leases.
    CREATE INDEX messages_leased ON ${s}.messages (queue, lease_until) WHERE lease_until IS NOT NULL;

    CREATE TABLE ${s}.queues (name text PRIMARY KEY);
    CREATE TABLE ${s}.paused_queues (queue text PRIMARY KEY);

    CREATE TABLE ${s}.dead_letters (
      queue text NOT NULL,
      id text NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      priority smallint NOT NULL DEFAULT 0,
      body text NOT NULL,
      reason text NOT NULL,
      at bigint NOT NULL,
      -- Set when the body was over maxMessageSize: its size in bytes (only a preview is kept).
      size integer,
      limits jsonb,
      PRIMARY KEY (queue, id)
    );
    CREATE INDEX dead_letters_order ON ${s}.dead_letters (queue, seq);

    CREATE TABLE ${s}.failed_tasks (
      queue text NOT NULL,
      id text NOT NULL,
      -- Order of keeping, newest last (two may share a millisecond).
      seq bigint GENERATED ALWAYS AS IDENTITY,
      body text NOT NULL,
      task text NOT NULL,
      error jsonb NOT NULL,
      attempts integer NOT NULL,
      at bigint NOT NULL,
      expires_at bigint NOT NULL,
      PRIMARY KEY (queue, id)
    );
    CREATE INDEX failed_tasks_newest ON ${s}.failed_tasks (queue, seq DESC);

    CREATE TABLE ${s}.revocations (
      id text PRIMARY KEY,
      terminate boolean NOT NULL,
      signal text,
      grace integer,
      expires_at bigint NOT NULL
    );

    CREATE TABLE ${s}.workers (hostname text PRIMARY KEY, info jsonb NOT NULL, expires_at bigint NOT NULL);

    -- Notification payloads over NOTIFY's 8000-byte limit: the notification carries the row's id.
    CREATE TABLE ${s}.notices (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload text NOT NULL, at bigint NOT NULL);

    -- Rates set at run time (setRateLimit), by task name.
    CREATE TABLE ${s}.rate_limits (task text PRIMARY KEY, setting jsonb NOT NULL);
  `,
};
