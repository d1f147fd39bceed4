/**
 * Step 201: chord counters. One row per group holds a bit a member (so a re-run member is not
 * counted twice) and the count; `group_members_done` counts the members one process settled
 * together, under the row lock its upsert takes, so exactly one caller completes a group.
 */
import type { Migration } from './migration';

/** The group counters table and the function that counts members. */
export const GROUP_COUNTERS_MIGRATION: Migration = {
  id: 201,
  name: 'group counters',
  sql: (schema) => `
    CREATE TABLE ${schema}.group_counters (
      id text PRIMARY KEY,
      members varbit NOT NULL,
      counted integer NOT NULL,
      expires_at timestamptz NOT NULL
    ) WITH (fillfactor = 70);
    CREATE INDEX group_counters_expires_at ON ${schema}.group_counters (expires_at);

    -- Counts member indices[i] of group group_ids[i] (of sizes[i] members, kept ttls[i] ms), in
    -- order; one row out per member: the count after it, whether it completed the group, whether it
    -- had been counted before. An expired row starts over.
    CREATE FUNCTION ${schema}.group_members_done(
      group_ids text[], indices integer[], sizes integer[], ttls bigint[]
    ) RETURNS TABLE (done integer, completed boolean, repeated boolean)
    LANGUAGE plpgsql AS $body$
    DECLARE
      n integer;
      bits varbit;
      total integer;
      seen boolean;
    BEGIN
      FOR n IN 1 .. coalesce(array_length(group_ids, 1), 0) LOOP
        INSERT INTO ${schema}.group_counters AS g (id, members, counted, expires_at)
        VALUES (
          group_ids[n], repeat('0', sizes[n])::varbit, 0,
          now() + ttls[n] * interval '1 millisecond'
        )
        ON CONFLICT (id) DO UPDATE SET
          members = CASE WHEN g.expires_at <= now() THEN excluded.members ELSE g.members END,
          counted = CASE WHEN g.expires_at <= now() THEN 0 ELSE g.counted END,
          expires_at = greatest(g.expires_at, excluded.expires_at)
        RETURNING g.members, g.counted INTO bits, total;
        IF indices[n] < 0 OR indices[n] >= length(bits) THEN
          RAISE EXCEPTION 'member % of group % is outside its % members',
            indices[n], group_ids[n], length(bits)
            USING ERRCODE = '22023';
        END IF;
        seen := get_bit(bits, indices[n]) = 1;
        IF NOT seen THEN
          bits := set_bit(bits, indices[n], 1);
          total := total + 1;
          UPDATE ${schema}.group_counters SET members = bits, counted = total WHERE id = group_ids[n];
        END IF;
        done := total;
        completed := NOT seen AND total = length(bits);
        repeated := seen;
        RETURN NEXT;
      END LOOP;
    END
    $body$;
  `,
};
