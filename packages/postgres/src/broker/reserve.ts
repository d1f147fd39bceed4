/**
 * The claim: one statement (the `claim` function of migration 102) that leases up to `count`
 * waiting, due messages of unpaused queues, taken in the order of `queues`, then priority (higher
 * first), then publish order. Rows another worker is claiming at the same moment are skipped
 * (`FOR UPDATE SKIP LOCKED`), never waited for. Queues that never had a limited task take one
 * set-based UPDATE; the others admit each candidate against its limits (held ones stay behind).
 */
import type { Delivery } from '@celeriac/core';
import type { BrokerContext } from './broker-context';

/** A leased row, with where it stood in the claim order. */
interface ClaimedRow {
  id: string;
  queue: string;
  body: string;
  deliveries: number;
  ord: string;
  priority: number;
  seq: string;
}

/** Leases up to `count` messages of `queues`; never blocks. */
export async function reserve(context: BrokerContext, queues: readonly string[], count: number): Promise<Delivery[]> {
  if (queues.length === 0 || count <= 0) return [];
  const rows = await context.connection.query<ClaimedRow>(`SELECT * FROM ${context.tables.claim}($1, $2, $3)`, [
    queues,
    count,
    context.settings.visibilityTimeout,
  ]);
  // RETURNING keeps no order: put the claim's back.
  rows.sort((a, b) => Number(a.ord) - Number(b.ord) || b.priority - a.priority || Number(a.seq) - Number(b.seq));
  return rows.map(({ id, queue, body, deliveries }) => ({ id, queue, body, deliveries }));
}
