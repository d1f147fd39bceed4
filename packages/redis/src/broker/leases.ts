/**
 * Leases on the Redis broker: a reserved delivery's lease is renewed while its task runs, and a
 * lease that lapsed (its worker died or hung) brings the message back, counted, or dead-letters it
 * at `maxDeliveries`.
 */
import type { DeadLetter, Delivery, RecoveryReport } from '@celeriac/core';
import { groupByQueue, queueScript, type BrokerContext } from './broker-context';

/** Most lapsed leases handled per queue per sweep. */
const RECOVER_LIMIT = 1_000;

/** Renews the leases of `deliveries` for another visibility timeout from now. */
export async function extendLeases(context: BrokerContext, deliveries: readonly Delivery[]): Promise<void> {
  const deadline = Date.now() + context.settings.visibilityTimeout;
  await Promise.all(
    [...groupByQueue(deliveries)].map(([queue, items]) =>
      queueScript(context, 'extendLeases', queue, [
        deadline,
        ...items.flatMap((delivery) => [delivery.id, delivery.deliveries]),
      ]),
    ),
  );
}

/** Brings back the messages of `queues` whose leases lapsed, and dead-letters those delivered too often. */
export async function recoverLapsed(context: BrokerContext, queues: readonly string[]): Promise<RecoveryReport> {
  const { settings } = context;
  const requeued: string[] = [];
  const dead: DeadLetter[] = [];
  const now = Date.now();
  await Promise.all(
    queues.map(async (queue) => {
      const [ids, buried] = await queueScript<[string[], string[]]>(context, 'recover', queue, [
        now,
        settings.maxDeliveries,
        RECOVER_LIMIT,
        settings.maxMessageSize ?? 0,
      ]);
      requeued.push(...ids);
      for (let i = 0; i < buried.length; i += 4) {
        dead.push({
          id: buried[i] as string,
          queue,
          body: buried[i + 1] as string,
          reason: buried[i + 2] as string,
          at: Number(buried[i + 3]),
        });
      }
    }),
  );
  return { requeued, dead };
}
