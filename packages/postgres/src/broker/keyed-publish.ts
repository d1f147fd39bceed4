/**
 * Publishing a batch that holds unique or debounced tasks: one transaction (the caller's, with the
 * `transaction` option, else one of its own) that stores the envelopes in order, each keyed one
 * under its key's advisory lock, so two senders of one key queue up and the second sees the first.
 */
import type { Envelope, PublishOutcome, TransactionClient } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { publishDebounced } from './debounce-lock';
import { publishOn } from './insert-messages';
import { publishUnique } from './unique-lock';

/** Stores `envelopes` (some keyed) in one transaction, in order. */
export async function publishKeyed(
  context: BrokerContext,
  envelopes: readonly Envelope[],
  transaction?: TransactionClient,
): Promise<PublishOutcome[]> {
  if (transaction) return publishInOrder(context, transaction, envelopes);
  const client = await context.connection.pool.connect();
  try {
    await client.query('BEGIN');
    const outcomes = await publishInOrder(context, client, envelopes);
    await client.query('COMMIT');
    return outcomes;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** True when an envelope needs its key's lock to be published. */
export function isKeyed(envelope: Envelope): boolean {
  return envelope.limits?.unique !== undefined || envelope.limits?.debounce !== undefined;
}

async function publishInOrder(
  context: BrokerContext,
  client: TransactionClient,
  envelopes: readonly Envelope[],
): Promise<PublishOutcome[]> {
  const outcomes: PublishOutcome[] = [];
  for (const envelope of envelopes) {
    const { unique, debounce } = envelope.limits ?? {};
    const outcome = unique
      ? await publishUnique(context, client, envelope, unique)
      : debounce
        ? await publishDebounced(context, client, envelope, debounce)
        : (await publishOn(context, [envelope], client))[0];
    outcomes.push(outcome ?? 'duplicate');
  }
  return outcomes;
}
