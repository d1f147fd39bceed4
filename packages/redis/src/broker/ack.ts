/**
 * Acks on the Redis broker: finished deliveries leave their queue; those that failed for good are
 * acked by the failed-task registry's script, which keeps them in the same step.
 */
import type { Delivery, Failure } from '@celeriac/core';
import { awaitReplicas } from '../connection/replication';
import { groupByQueue, queueScript, type BrokerContext } from './broker-context';

/** Acks `deliveries`, keeping those with a `failures` entry in the failed-task registry. */
export async function ackDeliveries(
  context: BrokerContext,
  deliveries: readonly Delivery[],
  failures?: ReadonlyMap<string, Failure>,
): Promise<void> {
  const failed = failures && failures.size > 0 ? deliveries.filter((delivery) => failures.has(delivery.id)) : [];
  const done = failed.length > 0 ? deliveries.filter((delivery) => !failures?.has(delivery.id)) : deliveries;
  await Promise.all([
    ...[...groupByQueue(done)].map(([queue, items]) =>
      queueScript(
        context,
        'ack',
        queue,
        items.flatMap((delivery) => [delivery.id, delivery.deliveries]),
      ),
    ),
    ...[...groupByQueue(failed)].map(([queue, items]) =>
      context.failed.ack(queue, items, failures as ReadonlyMap<string, Failure>),
    ),
    // Rare (a worker died after keeping an entry, before its ack): no cost on first deliveries.
    ...[...groupByQueue(done.filter((delivery) => delivery.deliveries > 1))].map(([queue, items]) =>
      context.failed.discard(
        queue,
        items.map((delivery) => delivery.id),
      ),
    ),
  ]);
  // A lost ack runs the task again; with 'replicated' a failover does not bring finished tasks back.
  await awaitReplicas(context.connection.client, context.settings.replication, 'the acks of finished tasks');
}
