/** Broker conformance: `waitForWork` wakes on a publish, on a delayed message coming due, and on abort; `close`. */
import type { Broker } from '../../broker';
import { settledWithin, withDeadline } from '../wait';
import { envelope, expectWaitPending, ids, OTHER_QUEUE, QUEUE, type OpenBroker } from './harness';

/** How long a wait that should end by itself may take before the case fails. */
const DEADLINE = 5_000;

/** Waits for work and reserves until something comes back, like a worker's fetch loop does. */
async function nextWork(broker: Broker, queues: readonly string[], signal: AbortSignal) {
  for (;;) {
    await broker.waitForWork(queues, signal);
    const deliveries = await broker.reserve(queues, 10);
    if (deliveries.length > 0 || signal.aborted) return deliveries;
  }
}

/** Defines the waitForWork and close cases. */
export function waitCases(open: OpenBroker): void {
  it('waitForWork resolves when a message is published to one of its queues', async () => {
    const { broker, writer } = await open();
    await withDeadline(DEADLINE, async (signal) => {
      const work = nextWork(broker, [QUEUE, OTHER_QUEUE], signal);
      await writer.publish([envelope('a', { queue: OTHER_QUEUE })]);
      expect(ids(await work)).toEqual(['a']);
      expect(signal.aborted).toBe(false);
    });
  });

  it('waitForWork resolves when a delayed message comes due', async () => {
    const { broker, writer } = await open();
    const eta = Date.now() + 200;
    await writer.publish([envelope('later', { eta })]);
    await withDeadline(DEADLINE, async (signal) => {
      expect(ids(await nextWork(broker, [QUEUE], signal))).toEqual(['later']);
      expect(signal.aborted).toBe(false);
    });
    expect(Date.now()).toBeGreaterThanOrEqual(eta);
  });

  it('waitForWork resolves at once when work is already ready', async () => {
    const { broker } = await open();
    await broker.publish([envelope('a')]);
    await withDeadline(DEADLINE, async (signal) => {
      await broker.waitForWork([QUEUE], signal);
      expect(signal.aborted).toBe(false);
    });
  });

  it('waitForWork stays pending while nothing is ready in its queues (no busy polling)', async () => {
    const { broker } = await open();
    await broker.publish([envelope('elsewhere', { queue: OTHER_QUEUE })]);
    await expectWaitPending(broker);
  });

  it('waitForWork resolves when its signal aborts, or at once when it already has', async () => {
    const { broker } = await open();
    const controller = new AbortController();
    const waiting = broker.waitForWork([QUEUE], controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
    await expect(broker.waitForWork([QUEUE], controller.signal)).resolves.toBeUndefined();
  });

  it('close releases the broker and settles a pending waitForWork', async () => {
    const { broker } = await open();
    const controller = new AbortController();
    const waiting = broker.waitForWork([QUEUE], controller.signal);
    await broker.close();
    const outcome = await settledWithin(
      waiting.then(
        () => 'resolved',
        () => 'rejected',
      ),
      DEADLINE,
    );
    controller.abort();
    expect(outcome).not.toBe('pending');
  });
}
