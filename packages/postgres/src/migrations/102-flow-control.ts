/**
 * Step 102: flow control. Concurrency slots are rows tied to leases; a rate budget is one row per
 * scope holding its GCRA arrival time. A task over its limits stays in `messages`, held: until its
 * booked start (`run_at`, with `booked` set) or, for a slot, with `run_at` at HELD, which no clock
 * reaches; a freed slot wakes the oldest held task of its scope. The claim becomes a function: the
 * set-based UPDATE when none of its queues ever had a limited task, else a loop that admits each.
 */
import type { Migration } from './migration';

/** The due time of a task held for a concurrency slot: a release wakes it, never the clock (2^52 ms). */
export const HELD = 4_503_599_627_370_496;

/** Flow-control tables, the `booked` column and the claim and release functions. */
export const FLOW_CONTROL: Migration = {
  id: 102,
  name: 'flow control',
  sql: (s) => `
    ALTER TABLE ${s}.messages ADD COLUMN booked boolean NOT NULL DEFAULT false;
    CREATE INDEX messages_held ON ${s}.messages ((limits -> 'concurrency' ->> 'key'), seq) WHERE run_at = ${HELD};
    CREATE TABLE ${s}.limited_queues (queue text PRIMARY KEY);
    CREATE TABLE ${s}.flow_slots (scope text NOT NULL, id text NOT NULL, PRIMARY KEY (scope, id));
    CREATE INDEX flow_slots_id ON ${s}.flow_slots (id);
    CREATE TABLE ${s}.flow_rates (scope text PRIMARY KEY, arrival double precision NOT NULL);

    -- NULL when task "id" may start now (its slot is then taken); else until when to hold it.
    CREATE FUNCTION ${s}.admit(task_id text, limits jsonb, booked boolean, now_ms bigint) RETURNS bigint
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      slots_key text := limits -> 'concurrency' ->> 'key';
      rate jsonb := limits -> 'rate';
      step double precision;
      arrival double precision;
      due bigint;
    BEGIN
      IF slots_key IS NOT NULL THEN
        PERFORM pg_advisory_xact_lock(hashtext('${s}:slots:' || slots_key));
        IF NOT EXISTS (SELECT 1 FROM ${s}.flow_slots f WHERE f.scope = slots_key AND f.id = task_id)
           AND (SELECT count(*) FROM ${s}.flow_slots f WHERE f.scope = slots_key)
               >= (limits -> 'concurrency' ->> 'limit')::integer THEN
          RETURN ${HELD};
        END IF;
      END IF;
      IF rate IS NOT NULL AND NOT booked THEN
        rate := coalesce((SELECT r.setting FROM ${s}.rate_limits r WHERE r.task = limits ->> 'task'), rate);
        step := (rate ->> 'per')::double precision / (rate ->> 'limit')::double precision;
        SELECT greatest(f.arrival, now_ms) INTO arrival FROM ${s}.flow_rates f
          WHERE f.scope = limits -> 'rate' ->> 'key' FOR UPDATE;
        arrival := coalesce(arrival, now_ms);
        INSERT INTO ${s}.flow_rates (scope, arrival) VALUES (limits -> 'rate' ->> 'key', arrival + step)
          ON CONFLICT (scope) DO UPDATE SET arrival = excluded.arrival;
        due := ceil(arrival - ((rate ->> 'burst')::double precision - 1) * step);
        IF due > now_ms THEN RETURN due; END IF;
      END IF;
      IF slots_key IS NOT NULL THEN
        INSERT INTO ${s}.flow_slots (scope, id) VALUES (slots_key, task_id) ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $$;

    -- Leases up to "wanted" messages of "queues" in claim order, admitting limited ones.
    CREATE FUNCTION ${s}.claim(queues text[], wanted integer, lease bigint)
    RETURNS TABLE (id text, queue text, body text, deliveries integer, ord bigint, priority smallint, seq bigint)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      now_ms bigint := ${s}.now_ms();
      candidate record;
      taken integer := 0;
      hold bigint;
    BEGIN
      -- A claim lost in a server crash leaves its rows waiting: they run then, as if never claimed.
      -- So its commit need not wait for the disk (the publish that made them did).
      PERFORM set_config('synchronous_commit', 'off', true);
      IF NOT EXISTS (SELECT 1 FROM ${s}.limited_queues l WHERE l.queue = ANY(queues)) THEN
        RETURN QUERY
          WITH picked AS (
            SELECT m.id, q.ord, m.priority, m.seq
            FROM unnest(queues) WITH ORDINALITY AS q(name, ord)
            CROSS JOIN LATERAL (
              SELECT w.id, w.priority, w.seq FROM ${s}.messages w
              WHERE w.queue = q.name AND w.lease_until IS NULL AND w.run_at <= now_ms
                AND NOT EXISTS (SELECT 1 FROM ${s}.paused_queues p WHERE p.queue = q.name)
              ORDER BY w.priority DESC, w.seq
              LIMIT wanted
              FOR UPDATE SKIP LOCKED) AS m
            ORDER BY q.ord, m.priority DESC, m.seq
            LIMIT wanted)
          UPDATE ${s}.messages AS m SET lease_until = now_ms + lease
          FROM picked WHERE m.id = picked.id
          RETURNING m.id, m.queue, m.body, m.deliveries, picked.ord, picked.priority, picked.seq;
        RETURN;
      END IF;
      FOR candidate IN
        SELECT m.id, q.ord, m.priority, m.seq, m.limits, m.booked
        FROM unnest(queues) WITH ORDINALITY AS q(name, ord)
        CROSS JOIN LATERAL (
          SELECT w.id, w.priority, w.seq, w.limits, w.booked FROM ${s}.messages w
          WHERE w.queue = q.name AND w.lease_until IS NULL AND w.run_at <= now_ms
            AND NOT EXISTS (SELECT 1 FROM ${s}.paused_queues p WHERE p.queue = q.name)
          ORDER BY w.priority DESC, w.seq
          FOR UPDATE SKIP LOCKED) AS m
        ORDER BY q.ord, m.priority DESC, m.seq
      LOOP
        EXIT WHEN taken >= wanted;
        hold := CASE WHEN candidate.limits IS NULL THEN NULL
                     ELSE ${s}.admit(candidate.id, candidate.limits, candidate.booked, now_ms) END;
        IF hold IS NULL THEN
          taken := taken + 1;
          RETURN QUERY
            UPDATE ${s}.messages AS m SET lease_until = now_ms + lease, booked = false
            WHERE m.id = candidate.id
            RETURNING m.id, m.queue, m.body, m.deliveries, candidate.ord, candidate.priority, candidate.seq;
        ELSE
          UPDATE ${s}.messages AS m SET run_at = hold, booked = (hold < ${HELD}) WHERE m.id = candidate.id;
        END IF;
      END LOOP;
    END $$;

    -- Frees the slots "ids" held (their leases ended) and makes the oldest held task of each freed
    -- scope ready, with a work notice; returns how many it woke.
    CREATE FUNCTION ${s}.release_slots(ids text[], work_channel text) RETURNS integer
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      freed text;
      woken integer := 0;
      wake record;
    BEGIN
      IF coalesce(array_length(ids, 1), 0) = 0 THEN RETURN 0; END IF;
      FOR freed IN DELETE FROM ${s}.flow_slots f WHERE f.id = ANY(ids) RETURNING f.scope LOOP
        UPDATE ${s}.messages AS m SET run_at = ${s}.now_ms()
        WHERE m.id = (
          SELECT h.id FROM ${s}.messages h
          WHERE h.run_at = ${HELD} AND h.lease_until IS NULL AND h.limits -> 'concurrency' ->> 'key' = freed
          ORDER BY h.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING m.queue, m.run_at INTO wake;
        IF FOUND THEN
          woken := woken + 1;
          PERFORM pg_notify(work_channel,
            json_build_array(json_build_object('q', wake.queue, 'at', wake.run_at))::text);
        END IF;
      END LOOP;
      RETURN woken;
    END $$;
  `,
};
