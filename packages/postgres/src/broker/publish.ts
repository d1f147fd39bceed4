/**
 * Publishing: a batch of envelopes is one INSERT statement (and one work notice), on the pool or on
 * the caller's own transaction client, where it becomes visible only at COMMIT.
 */
import type { Envelope, PublishOutcome, TransactionClient } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { publishOn } from './insert-messages';
import { isKeyed, publishKeyed } from './keyed-publish';

/**
 * Stores `envelopes`: in one statement, on `client` when given (the caller's transaction), else on
 * the pool; a batch with unique or debounced tasks in one transaction that takes their keys
 * (keyed-publish.ts).
 * An id that is still waiting or running (or repeated in the batch) is `'duplicate'`.
 */
export async function publish(
  context: BrokerContext,
  envelopes: readonly Envelope[],
  client?: TransactionClient,
): Promise<PublishOutcome[]> {
  if (envelopes.length === 0) return [];
  // The caller's transaction may have begun before this process migrated the schema.
  await context.connection.ready();
  if (envelopes.some(isKeyed)) return publishKeyed(context, envelopes, client);
  return publishOn(context, envelopes, client);
}
