/** Broker conformance: requeue (with delay and a new body), dead-letters, listing, requeueing and discarding them. */
import { untilPast } from '../wait';
import { envelope, ids, OTHER_QUEUE, publishAndReserve, QUEUE, type OpenBroker } from './harness';

/** Defines the requeue and dead-letter cases. */
export function settleCases(open: OpenBroker): void {
  it('requeue without a delay returns the message to its queue without raising its delivery count', async () => {
    const { broker } = await open();
    const delivery = await publishAndReserve(broker, envelope('a'));
    await broker.requeue(delivery);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 1, delayed: 0, active: 0, dead: 0 });
    const [again] = await broker.reserve([QUEUE], 1);
    expect(again).toEqual({ id: 'a', queue: QUEUE, body: 'body of a', deliveries: 1 });
  });

  it('requeue with a delay and a new body delivers the new body once due', async () => {
    const { broker } = await open();
    const delivery = await publishAndReserve(broker, envelope('a'));
    await broker.requeue(delivery, { delay: 300, body: 'retry 1' });
    const latest = Date.now() + 300;
    await untilPast(latest);
    expect(await broker.reserve([QUEUE], 1)).toEqual([{ id: 'a', queue: QUEUE, body: 'retry 1', deliveries: 1 }]);
  });

  it('deadLetter moves a leased message to the dead set with its reason and time', async () => {
    const { broker } = await open();
    const delivery = await publishAndReserve(broker, envelope('a'));
    const before = Date.now();
    await broker.deadLetter(delivery, 'undecodable message');
    const after = Date.now();
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 1 });
    const [dead, ...rest] = await broker.listDead(QUEUE);
    expect(rest).toEqual([]);
    expect(dead).toMatchObject({ id: 'a', queue: QUEUE, body: 'body of a', reason: 'undecodable message' });
    expect(dead?.at).toBeGreaterThanOrEqual(before - 1_000);
    expect(dead?.at).toBeLessThanOrEqual(after + 1_000);
    expect(await broker.listDead(OTHER_QUEUE)).toEqual([]);
    expect(await broker.reserve([QUEUE], 1)).toEqual([]);
  });

  it('listDead pages through dead messages, oldest first', async () => {
    const { broker } = await open();
    await broker.publish(['a', 'b', 'c'].map((id) => envelope(id)));
    for (const delivery of await broker.reserve([QUEUE], 3)) await broker.deadLetter(delivery, `reason ${delivery.id}`);
    expect(ids(await broker.listDead(QUEUE))).toEqual(['a', 'b', 'c']);
    expect(ids(await broker.listDead(QUEUE, { offset: 1, limit: 1 }))).toEqual(['b']);
    expect(ids(await broker.listDead(QUEUE, { limit: 2 }))).toEqual(['a', 'b']);
    expect(ids(await broker.listDead(QUEUE, { offset: 2 }))).toEqual(['c']);
  });

  it('requeueDead puts dead messages back, chosen by id or all, with a fresh delivery count', async () => {
    const { broker } = await open();
    await broker.publish(['a', 'b', 'c'].map((id) => envelope(id)));
    for (const delivery of await broker.reserve([QUEUE], 3)) await broker.deadLetter(delivery, 'test');
    expect(await broker.requeueDead(QUEUE, ['b'])).toBe(1);
    expect(ids(await broker.listDead(QUEUE))).toEqual(['a', 'c']);
    expect(await broker.reserve([QUEUE], 10)).toEqual([{ id: 'b', queue: QUEUE, body: 'body of b', deliveries: 1 }]);
    expect(await broker.requeueDead(QUEUE)).toBe(2);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 2, delayed: 0, active: 1, dead: 0 });
    expect(ids(await broker.reserve([QUEUE], 10)).sort()).toEqual(['a', 'c']);
    expect(await broker.requeueDead(QUEUE)).toBe(0);
  });

  it('discardDead deletes dead messages for good, chosen by id or all, and nothing else', async () => {
    const { broker } = await open();
    await broker.publish(['a', 'b', 'c', 'live'].map((id) => envelope(id)));
    for (const delivery of await broker.reserve([QUEUE], 3)) await broker.deadLetter(delivery, 'test');
    // An empty list (say, a filter that matched nothing) touches nothing; only leaving ids out means all.
    expect(await broker.discardDead(QUEUE, [])).toBe(0);
    expect(await broker.requeueDead(QUEUE, [])).toBe(0);
    expect(ids(await broker.listDead(QUEUE))).toEqual(['a', 'b', 'c']);
    expect(await broker.discardDead(QUEUE, ['b', 'unknown'])).toBe(1);
    expect(ids(await broker.listDead(QUEUE))).toEqual(['a', 'c']);
    expect(await broker.discardDead(QUEUE)).toBe(2);
    expect(await broker.listDead(QUEUE)).toEqual([]);
    // A discarded message is gone: requeueing it brings nothing back, and the live one is untouched.
    expect(await broker.requeueDead(QUEUE, ['a'])).toBe(0);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 1, delayed: 0, active: 0, dead: 0 });
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['live']);
  });
}
