/** Handing a leased delivery back to its queue on the Redis broker: a retry, or a run that was lost. */
import type { Delivery } from '@celeriac/core';
import { queueScript, type BrokerContext } from './broker-context';

/** Puts a delivery back (after `delay`, with a new `body` if given) without counting it as lost. */
export async function requeue(
  context: BrokerContext,
  delivery: Delivery,
  options: { delay?: number; body?: string } = {},
): Promise<void> {
  await queueScript(context, 'requeue', delivery.queue, [
    delivery.id,
    delivery.deliveries,
    Date.now(),
    Math.max(0, Math.round(options.delay ?? 0)),
    options.body ?? '',
  ]);
}

/** Puts back a delivery whose run was lost (it counts), or dead-letters it at `maxDeliveries`. */
export async function requeueLost(
  context: BrokerContext,
  delivery: Delivery,
  reason: string,
): Promise<'requeued' | 'dead'> {
  const { settings } = context;
  const outcome = await queueScript<number>(context, 'requeueLost', delivery.queue, [
    delivery.id,
    delivery.deliveries,
    Date.now(),
    settings.maxDeliveries,
    reason,
    settings.maxMessageSize ?? 0,
  ]);
  return outcome === 2 ? 'dead' : 'requeued';
}
