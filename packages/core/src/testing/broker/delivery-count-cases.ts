/** Broker conformance: exact delivery counts and `maxDeliveries` (flag `deliveryCounts: 'exact'`). */
import { untilPast } from '../wait';
import { envelope, OTHER_QUEUE, QUEUE, type OpenBroker } from './harness';
import { LEASE } from './lease-cases';

/** Defines the delivery count cases. */
export function deliveryCountCases(open: OpenBroker): void {
  it('recoverLapsed requeues lapsed leases with deliveries + 1; dead-letters those at maxDeliveries', async () => {
    const twice = await open({ visibilityTimeout: LEASE, maxDeliveries: 2 });
    const once = await open({ visibilityTimeout: LEASE, maxDeliveries: 1 });
    await twice.broker.publish([envelope('a'), envelope('b', { queue: OTHER_QUEUE })]);
    await once.broker.publish([envelope('c')]);
    expect(await twice.broker.reserve([QUEUE, OTHER_QUEUE], 2)).toHaveLength(2);
    expect(await once.broker.reserve([QUEUE], 1)).toHaveLength(1);
    const reservedAt = Date.now();
    expect(await twice.broker.recoverLapsed([QUEUE, OTHER_QUEUE])).toEqual({ requeued: [], dead: [] });
    await untilPast(reservedAt + LEASE + 50);

    expect(await twice.broker.recoverLapsed([QUEUE])).toEqual({ requeued: ['a'], dead: [] });
    expect(await twice.broker.stats(OTHER_QUEUE)).toEqual({ ready: 0, delayed: 0, active: 1, dead: 0 });
    expect(await twice.broker.recoverLapsed([OTHER_QUEUE])).toEqual({ requeued: ['b'], dead: [] });
    expect(await twice.broker.reserve([QUEUE], 1)).toEqual([
      { id: 'a', queue: QUEUE, body: 'body of a', deliveries: 2 },
    ]);

    const report = await once.broker.recoverLapsed([QUEUE]);
    expect(report.requeued).toEqual([]);
    expect(report.dead).toEqual([
      expect.objectContaining({ id: 'c', queue: QUEUE, body: 'body of c', reason: expect.any(String) }),
    ]);
    expect(await once.broker.listDead(QUEUE)).toEqual([expect.objectContaining({ id: 'c', body: 'body of c' })]);
    expect(await once.broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 1 });
    expect(await once.broker.recoverLapsed([QUEUE])).toEqual({ requeued: [], dead: [] });
  });
}
