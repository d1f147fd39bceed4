/** Broker conformance: lease renewal and recovery of lapsed leases (needs a 1 s visibility timeout). */
import { untilPast } from '../wait';
import { envelope, QUEUE, type OpenBroker } from './harness';

/** The shortest visibility timeout apps accept; lease cases wait for it to pass once. */
export const LEASE = 1_000;

/** Defines the lease cases. */
export function leaseCases(open: OpenBroker): void {
  it('extendLeases keeps a running message from being recovered, while an unrenewed lease lapses', async () => {
    const { broker } = await open({ visibilityTimeout: LEASE });
    await broker.publish([envelope('kept'), envelope('lapsed'), envelope('acked')]);
    const [kept, lapsed, acked] = await broker.reserve([QUEUE], 3);
    const reservedAt = Date.now();
    expect([kept?.id, lapsed?.id, acked?.id]).toEqual(['kept', 'lapsed', 'acked']);
    await broker.ack([acked!]);
    await untilPast(reservedAt + LEASE / 2);
    await broker.extendLeases([kept!]);
    await untilPast(reservedAt + LEASE + 50);
    expect(await broker.recoverLapsed([QUEUE])).toEqual({ requeued: ['lapsed'], dead: [] });
    expect(await broker.stats(QUEUE)).toEqual({ ready: 1, delayed: 0, active: 1, dead: 0 });
    expect(await broker.reserve([QUEUE], 10)).toEqual([
      { id: 'lapsed', queue: QUEUE, body: 'body of lapsed', deliveries: 2 },
    ]);
    await broker.ack([kept!]);
  });
}
