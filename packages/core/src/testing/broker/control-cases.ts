/** Broker conformance: the control channel (broadcast and replies) and pausing queues. */
import { controlOf } from '../../control/control-api';
import { withDeadline } from '../wait';
import { envelope, ids, OTHER_QUEUE, QUEUE, type OpenBroker } from './harness';

const DEADLINE = 5_000;

/** Defines the control and pause cases. */
export function controlCases(open: OpenBroker): void {
  it('a broadcast reaches every listener and returns their replies', async () => {
    const { broker, writer } = await open();
    const listening = controlOf(broker);
    const seen: string[] = [];
    const stopA = await listening.onControl(
      async (request) => (seen.push(request.command), { hostname: 'a', ok: true, value: request.argument }),
    );
    const stopB = await listening.onControl(async () => ({ hostname: 'b', ok: true }));
    // A listener that is not addressed stays silent.
    const stopC = await listening.onControl(async () => undefined);
    const replies = await controlOf(writer).broadcast(
      { id: 'r1', command: 'pool-grow', argument: 2 },
      { timeout: 2_000, limit: 2 },
    );
    expect(replies.map((reply) => reply.hostname).sort()).toEqual(['a', 'b']);
    expect(replies.find((reply) => reply.hostname === 'a')?.value).toBe(2);
    expect(seen).toEqual(['pool-grow']);
    await Promise.all([stopA(), stopB(), stopC()]);
  });

  it('a broadcast nobody answers resolves empty after its timeout', async () => {
    const { writer } = await open();
    expect(await controlOf(writer).broadcast({ id: 'r2', command: 'ping' }, { timeout: 50 })).toEqual([]);
  });

  it('a paused queue takes publishes but leases nothing until resumed, which wakes a waiter', async () => {
    const { broker, writer } = await open();
    await controlOf(writer).pauseQueue(QUEUE);
    await writer.publish([envelope('held'), envelope('other', { queue: OTHER_QUEUE })]);
    expect(await controlOf(broker).pausedQueues([QUEUE, OTHER_QUEUE])).toEqual([QUEUE]);
    expect(ids(await broker.reserve([QUEUE, OTHER_QUEUE], 10))).toEqual(['other']);
    expect((await broker.stats(QUEUE)).ready).toBe(1);
    expect(await controlOf(broker).listQueues()).toEqual(expect.arrayContaining([QUEUE, OTHER_QUEUE]));
    await withDeadline(DEADLINE, async (signal) => {
      const waiting = broker.waitForWork([QUEUE], signal);
      await controlOf(writer).resumeQueue(QUEUE);
      await waiting;
      expect(signal.aborted).toBe(false);
    });
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['held']);
    expect(await controlOf(broker).pausedQueues([QUEUE])).toEqual([]);
  });
}
