/**
 * Tasks that outlive RabbitMQ's consumer_timeout, on a node of the test's own whose timeout is
 * 2 s (checked every quarter second): the delivery is renewed by a parked copy, so it is neither
 * redelivered while it runs nor lost when its process dies.
 */
import type { BrokerSettings, Delivery } from '@celeriac/core';
import { untilPast } from '@celeriac/core/testing';
import { AmqpTransport } from '@celeriac/amqp';
import { RABBIT_NODE_TIMEOUT, startRabbitNode, type RabbitNode } from '@celeriac/test-support';

const CONSUMER_TIMEOUT = 2_000;
let node: RabbitNode;
beforeAll(async () => {
  node = await startRabbitNode({
    name: 'long-tasks',
    port: 5_681,
    rabbit: [`{consumer_timeout, ${CONSUMER_TIMEOUT}}`, '{channel_tick_interval, 250}'],
  });
}, RABBIT_NODE_TIMEOUT);
afterAll(() => node.stop(), RABBIT_NODE_TIMEOUT);

let transports: AmqpTransport[] = [];
afterEach(async () => {
  await Promise.allSettled(transports.map((transport) => transport.close()));
  transports = [];
});

let runs = 0;
function open(queueType: 'quorum' | 'classic' = 'quorum'): { worker: AmqpTransport; peer: AmqpTransport } {
  runs += 1;
  const settings: BrokerSettings = {
    prefix: `long-${runs}`,
    visibilityTimeout: 60_000,
    maxDeliveries: 5,
    revokeTtl: 60_000,
  };
  const make = () => new AmqpTransport(node.url, settings, { queueType, consumerTimeout: CONSUMER_TIMEOUT });
  transports = [make(), make()];
  return { worker: transports[0] as AmqpTransport, peer: transports[1] as AmqpTransport };
}

const envelope = (id: string) => ({ id, queue: 'q', priority: 0, idempotent: false, body: `body of ${id}` });

describe.each(['quorum', 'classic'] as const)('a lease past consumer_timeout, %s queues', (queueType) => {
  it('stays with its worker: not redelivered while it runs, acked once at the end', async () => {
    const { worker, peer } = open(queueType);
    await worker.publish([envelope('long'), envelope('queued')]);
    const [held] = await worker.reserve(['q'], 1);
    expect(held?.id).toBe('long');
    // The peer takes what is ready; the lease outlives the timeout 2.5 times over while the peer keeps asking.
    const seen: string[] = (await peer.reserve(['q'], 10)).map((delivery) => delivery.id);
    const end = Date.now() + 2.5 * CONSUMER_TIMEOUT;
    while (Date.now() < end) {
      seen.push(...(await peer.reserve(['q'], 10)).map((delivery) => delivery.id));
      await untilPast(Date.now() + 250);
    }
    expect(seen).toEqual(['queued']);
    expect(await worker.stats('q')).toMatchObject({ ready: 0, active: 1 });
    await worker.ack([held as Delivery]);
    expect(await worker.stats('q')).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
  }, 30_000);

  it('comes back to run again, counted, when its worker dies after a renewal', async () => {
    const { worker, peer } = open(queueType);
    await worker.publish([envelope('long')]);
    const [held] = await worker.reserve(['q'], 1);
    await untilPast(Date.now() + 1.5 * CONSUMER_TIMEOUT);
    // Gone without a word: its connection closes and RabbitMQ takes back what it held.
    await worker.close();
    const again = await waitForDelivery(peer);
    expect(again).toMatchObject({ id: 'long', body: 'body of long' });
    expect(again.deliveries).toBeGreaterThan(held?.deliveries as number);
    await peer.ack([again]);
    expect(await peer.stats('q')).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
  }, 30_000);
});

it('returns prefetched messages that wait past half the timeout to their queue, not to a closed channel', async () => {
  const { worker, peer } = open();
  await worker.publish([envelope('first'), envelope('second')]);
  // The worker leases one and has the other prefetched, waiting for a slot, past the timeout.
  const [first] = await worker.reserve(['q'], 1);
  await untilPast(Date.now() + 1.5 * CONSUMER_TIMEOUT);
  await worker.ack([first as Delivery]);
  const [second] = await worker.reserve(['q'], 1);
  expect(second).toMatchObject({ id: 'second', deliveries: 1 });
  await worker.ack([second as Delivery]);
  expect(await peer.stats('q')).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
}, 30_000);

async function waitForDelivery(transport: AmqpTransport): Promise<Delivery> {
  const signal = AbortSignal.timeout(20_000);
  for (;;) {
    const [delivery] = await transport.reserve(['q'], 1);
    if (delivery) return delivery;
    if (signal.aborted) throw new Error('No delivery came back within 20 s.');
    await transport.waitForWork(['q'], signal);
  }
}
