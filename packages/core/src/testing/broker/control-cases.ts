/** Broker conformance: the control channel, broadcast and replies (flag `remoteControl`). */
import { controlOf } from '../../control/control-api';
import { envelope, OTHER_QUEUE, QUEUE, type OpenBroker } from './harness';

/** Defines the control cases. */
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

  it('listQueues names every queue published to', async () => {
    const { broker, writer } = await open();
    await writer.publish([envelope('a'), envelope('b', { queue: OTHER_QUEUE })]);
    expect(await controlOf(broker).listQueues()).toEqual(expect.arrayContaining([QUEUE, OTHER_QUEUE]));
  });
}
