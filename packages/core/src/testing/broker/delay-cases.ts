/**
 * Broker conformance: where a delayed message waits (flag `delays`). `'broker'`: the broker keeps it
 * apart, counted delayed, until due. `'consumer'`: it waits in its queue, and the worker that takes it
 * holds it until due, as Celery's workers do.
 */
import { untilPast } from '../wait';
import {
  envelope,
  expectWaitPending,
  ids,
  OTHER_QUEUE,
  publishAndReserve,
  QUEUE,
  reserveWhenReady,
  type OpenBroker,
} from './harness';

/** Defines the cases of delays kept by the broker. */
export function delayCases(open: OpenBroker): void {
  it('keeps a delayed message until its eta, then leases it once it is due', async () => {
    const { broker } = await open();
    // A first call before the clock starts: a cluster client learns the cluster's slots, RabbitMQ declares the
    // queue and its delay levels (which took more than the delay on a loaded machine).
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
    // Far enough ahead that the next three calls finish before it on a loaded machine.
    const eta = Date.now() + 1_000;
    await broker.publish([envelope('later', { eta }), envelope('now')]);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 1, delayed: 1, active: 0, dead: 0 });
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['now']);
    expect(await broker.reserve([QUEUE], 10)).toEqual([]);
    await untilPast(eta);
    // Due now: a worker's wait for work ends when it is there (a broker that routes it back to a
    // queue shared with other consumers, as the Celery protocol on RabbitMQ does, takes a few ms).
    expect(await reserveWhenReady(broker, 'later')).toEqual({
      id: 'later',
      queue: QUEUE,
      body: 'body of later',
      deliveries: 1,
    });
  });

  it('waitForWork stays pending while nothing is ready (no busy polling)', async () => {
    const { broker } = await open();
    await broker.publish([
      envelope('elsewhere', { queue: OTHER_QUEUE }),
      envelope('later', { eta: Date.now() + 60_000 }),
    ]);
    await expectWaitPending(broker);
  });

  it('requeue with a delay and a new body holds the message until due, then delivers the new body', async () => {
    const { broker } = await open();
    const delivery = await publishAndReserve(broker, envelope('a'));
    // The broker takes its due time during the call: no earlier than the first, no later than the second.
    const earliest = Date.now() + 300;
    await broker.requeue(delivery, { delay: 300, body: 'retry 1' });
    const latest = Date.now() + 300;
    const stats = await broker.stats(QUEUE);
    const early = await broker.reserve([QUEUE], 1);
    // What was seen before the due time must show it held (a loaded machine may get here later).
    if (Date.now() < earliest) {
      expect(stats).toEqual({ ready: 0, delayed: 1, active: 0, dead: 0 });
      expect(early).toEqual([]);
    }
    await untilPast(latest);
    const delivered = early.length > 0 ? early : await broker.reserve([QUEUE], 1);
    expect(delivered).toEqual([{ id: 'a', queue: QUEUE, body: 'retry 1', deliveries: 1 }]);
  });
}

/** The cases of delays held by the consumer (`delays: 'consumer'`). */
export function consumerDelayCases(open: OpenBroker): void {
  it('a delayed message waits in its queue, counted ready, until a reserve takes it and holds it', async () => {
    const { broker } = await open();
    const eta = Date.now() + 1_000;
    await broker.publish([envelope('later', { eta }), envelope('now')]);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 2, delayed: 0, active: 0, dead: 0 });
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['now']);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 1, active: 1, dead: 0 });
    await untilPast(eta);
    // Due now: a worker's wait for work ends when it is there (a broker that routes it back to a
    // queue shared with other consumers, as the Celery protocol on RabbitMQ does, takes a few ms).
    expect(await reserveWhenReady(broker, 'later')).toEqual({
      id: 'later',
      queue: QUEUE,
      body: 'body of later',
      deliveries: 1,
    });
  });

  it('waitForWork takes a delayed message into its hold once, then stays pending until it is due', async () => {
    const { broker } = await open();
    await broker.publish([envelope('later', { eta: Date.now() + 60_000 })]);
    await broker.waitForWork([QUEUE], new AbortController().signal);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 1, active: 0, dead: 0 });
    await expectWaitPending(broker);
  });
}
