/** Broker conformance: paused queues (flag `pause`). */
import type { Broker } from '../../broker';
import { brokerSupports, type BrokerWith } from '../../supports';
import { withDeadline } from '../wait';
import { envelope, ids, OTHER_QUEUE, QUEUE, type OpenBroker } from './harness';

const DEADLINE = 5_000;

function pausing(broker: Broker): BrokerWith<'pause'> {
  if (!brokerSupports(broker, 'pause')) throw new Error('the pause cases run only on a broker that declares pause');
  return broker;
}

/** Defines the pause cases. */
export function pauseCases(open: OpenBroker): void {
  it('a paused queue takes publishes but leases nothing until resumed, which wakes a waiter', async () => {
    const { broker, writer } = await open();
    await pausing(writer).pauseQueue(QUEUE);
    await writer.publish([envelope('held'), envelope('other', { queue: OTHER_QUEUE })]);
    expect(await pausing(broker).pausedQueues([QUEUE, OTHER_QUEUE])).toEqual([QUEUE]);
    expect(ids(await broker.reserve([QUEUE, OTHER_QUEUE], 10))).toEqual(['other']);
    expect((await broker.stats(QUEUE)).ready).toBe(1);
    await withDeadline(DEADLINE, async (signal) => {
      const waiting = broker.waitForWork([QUEUE], signal);
      await pausing(writer).resumeQueue(QUEUE);
      await waiting;
      expect(signal.aborted).toBe(false);
    });
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['held']);
    expect(await pausing(broker).pausedQueues([QUEUE])).toEqual([]);
  });
}
