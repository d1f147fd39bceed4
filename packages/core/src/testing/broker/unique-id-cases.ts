/** Broker conformance: caller-chosen ids stay unique while their message waits or runs (flag `uniqueIds`). */
import { envelope, QUEUE, type OpenBroker } from './harness';

/** Defines the caller-chosen id cases. */
export function uniqueIdCases(open: OpenBroker): void {
  it('skips an idempotent envelope whose id is waiting, delayed or running; accepts it again once acked', async () => {
    const { broker } = await open();
    const later = Date.now() + 60_000;
    expect(await broker.publish([envelope('a', { idempotent: true }), envelope('a', { idempotent: true })])).toEqual([
      'published',
      'duplicate',
    ]);
    expect(
      await broker.publish([
        envelope('d', { idempotent: true, eta: later }),
        envelope('d', { idempotent: true, eta: later }),
      ]),
    ).toEqual(['published', 'duplicate']);
    const [delivery] = await broker.reserve([QUEUE], 1);
    expect(await broker.publish([envelope('a', { idempotent: true, body: 'second' })])).toEqual(['duplicate']);
    await broker.ack([delivery!]);
    expect(await broker.publish([envelope('a', { idempotent: true, body: 'third' })])).toEqual(['published']);
    expect(await broker.reserve([QUEUE], 10)).toEqual([{ id: 'a', queue: QUEUE, body: 'third', deliveries: 1 }]);
    expect((await broker.stats(QUEUE)).delayed).toBe(1);
  });
}

/** The opted-out case: a second publish of a waiting caller-chosen id is stored again, not skipped. */
export function uniqueIdLack(open: OpenBroker): void {
  it("a caller-chosen id still waiting is published again ('published', not 'duplicate')", async () => {
    const { broker } = await open();
    const outcomes = await broker.publish([envelope('a', { idempotent: true }), envelope('a', { idempotent: true })]);
    expect(outcomes).not.toContain('duplicate');
  });
}
