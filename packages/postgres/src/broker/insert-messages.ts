/**
 * The INSERT of a batch of envelopes, one statement with one work notice, on the pool or on a client
 * of an open transaction.
 */
import type { Envelope, PublishOutcome, TransactionClient } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { workNotice } from './fragments';

/** One statement storing the envelopes; an id already waiting or running is skipped (ON CONFLICT). */
function publishStatement(context: BrokerContext): string {
  const { messages, queues, limitedQueues, now } = context.tables;
  return `WITH input AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[], $4::bigint[], $5::text[], $6::jsonb[])
        WITH ORDINALITY AS input(id, queue, priority, eta, body, limits, ord)),
    stored AS (
      INSERT INTO ${messages} (id, queue, priority, run_at, body, limits)
      SELECT id, queue, priority, coalesce(eta, ${now}), body, limits FROM input ORDER BY ord
      ON CONFLICT (id) DO NOTHING
      RETURNING id, queue, run_at),
    named AS (INSERT INTO ${queues} (name) SELECT DISTINCT queue FROM stored ON CONFLICT DO NOTHING),
    limited AS (
      INSERT INTO ${limitedQueues} (queue)
      SELECT DISTINCT queue FROM input WHERE limits ? 'concurrency' OR limits ? 'rate'
      ON CONFLICT DO NOTHING)
    SELECT coalesce((SELECT array_agg(id) FROM stored), '{}') AS ids, ${workNotice(context, 'stored')} AS notified`;
}

/** The statement's parameters: one array a column. */
function publishValues(envelopes: readonly Envelope[]): unknown[] {
  return [
    envelopes.map((envelope) => envelope.id),
    envelopes.map((envelope) => envelope.queue),
    envelopes.map((envelope) => envelope.priority),
    envelopes.map((envelope) => envelope.eta ?? null),
    envelopes.map((envelope) => envelope.body),
    envelopes.map((envelope) => (envelope.limits ? JSON.stringify(envelope.limits) : null)),
  ];
}

/** Stores `envelopes` in one statement on `client` (or the pool), skipping ids already stored. */
export async function publishOn(
  context: BrokerContext,
  envelopes: readonly Envelope[],
  client?: TransactionClient,
): Promise<PublishOutcome[]> {
  const text = publishStatement(context);
  const values = publishValues(envelopes);
  const rows = client
    ? ((await client.query(text, values)).rows as Array<{ ids: string[] }>)
    : await context.connection.query<{ ids: string[] }>(text, values);
  const stored = new Set(rows[0]?.ids ?? []);
  // The first envelope of a stored id is the one stored; later ones of the same id were skipped.
  return envelopes.map((envelope) => (stored.delete(envelope.id) ? 'published' : 'duplicate'));
}
