/** Broker conformance: queue order and priorities within a queue (flag `priorities`). */
import { envelope, ids, OTHER_QUEUE, QUEUE, type OpenBroker } from './harness';

/** Defines the priority cases. */
export function priorityCases(open: OpenBroker): void {
  it('reserves earlier queues first, then higher priority, then first in first out', async () => {
    const { broker } = await open();
    await broker.publish([
      envelope('other-low', { queue: OTHER_QUEUE, priority: 0 }),
      envelope('low-1', { priority: 1 }),
      envelope('high-1', { priority: 9 }),
      envelope('low-2', { priority: 1 }),
      envelope('other-high', { queue: OTHER_QUEUE, priority: 255 }),
      envelope('high-2', { priority: 9 }),
      envelope('zero', { priority: 0 }),
    ]);
    const first = await broker.reserve([QUEUE, OTHER_QUEUE], 3);
    expect(ids(first)).toEqual(['high-1', 'high-2', 'low-1']);
    const rest = await broker.reserve([QUEUE, OTHER_QUEUE], 10);
    expect(ids(rest)).toEqual(['low-2', 'zero', 'other-high', 'other-low']);
  });
}
