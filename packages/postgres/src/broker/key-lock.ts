/** The advisory lock of a unique or debounce key, so two senders of one key queue up. */
import type { TransactionClient } from '@celeriac/core';
import type { BrokerContext } from './broker-context';

/** Takes the advisory lock of `key` (of `kind`) until the transaction ends. */
export async function lockKey(
  context: BrokerContext,
  client: TransactionClient,
  kind: 'unique' | 'debounce',
  key: string,
): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${context.channels.work}:${kind}:${key}`]);
}
