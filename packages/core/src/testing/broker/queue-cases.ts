/** Broker conformance: publishing, reservation, stats, purge and ack (delays: delay-cases.ts). */
import { envelope, ids, OTHER_QUEUE, publishAndReserve, QUEUE, type OpenBroker } from './harness';

/** Defines the publish/reserve cases. */
export function queueCases(open: OpenBroker): void {
  it('publishes one envelope and leases it with its id, queue, body and a first delivery count', async () => {
    const { broker } = await open();
    expect(await broker.publish([envelope('a')])).toEqual(['published']);
    expect(await broker.reserve([QUEUE], 10)).toEqual([{ id: 'a', queue: QUEUE, body: 'body of a', deliveries: 1 }]);
    expect(await broker.reserve([QUEUE], 10)).toEqual([]);
  });

  it('publishes many envelopes in one call, one outcome each, in order', async () => {
    const { broker } = await open();
    const outcomes = await broker.publish([envelope('a'), envelope('b'), envelope('c', { queue: OTHER_QUEUE })]);
    expect(outcomes).toEqual(['published', 'published', 'published']);
    expect(ids(await broker.reserve([QUEUE, OTHER_QUEUE], 10))).toEqual(['a', 'b', 'c']);
  });

  it('reserves at most count messages, and returns [] at once when nothing is ready', async () => {
    const { broker } = await open();
    expect(await broker.reserve([QUEUE], 5)).toEqual([]);
    await broker.publish(['a', 'b', 'c', 'd', 'e'].map((id) => envelope(id)));
    expect(ids(await broker.reserve([QUEUE], 2))).toEqual(['a', 'b']);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 3, delayed: 0, active: 2, dead: 0 });
    expect(ids(await broker.reserve([QUEUE, OTHER_QUEUE], 1))).toEqual(['c']);
  });

  it('counts messages by place in stats, per queue', async () => {
    const { broker } = await open();
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
    await broker.publish([envelope('a'), envelope('b'), envelope('c'), envelope('e', { queue: OTHER_QUEUE })]);
    const [, dying] = await broker.reserve([QUEUE], 2);
    await broker.deadLetter(dying!, 'test');
    expect(await broker.stats(QUEUE)).toEqual({ ready: 1, delayed: 0, active: 1, dead: 1 });
    expect(await broker.stats(OTHER_QUEUE)).toEqual({ ready: 1, delayed: 0, active: 0, dead: 0 });
  });

  it('treats an eta in the past as ready now', async () => {
    const { broker } = await open();
    await broker.publish([envelope('past', { eta: Date.now() - 1_000 })]);
    expect(ids(await broker.reserve([QUEUE], 1))).toEqual(['past']);
  });

  it('purges the ready and delayed messages of one queue, returns them, leaves active, dead and the rest', async () => {
    const { broker } = await open();
    await broker.publish([envelope('active'), envelope('dead')]);
    const [active, dead] = await broker.reserve([QUEUE], 2);
    await broker.deadLetter(dead!, 'test');
    await broker.publish([
      envelope('a'),
      envelope('b'),
      envelope('later', { eta: Date.now() + 60_000 }),
      envelope('kept', { queue: OTHER_QUEUE }),
    ]);
    const purged = await broker.purge(QUEUE);
    expect([...purged].sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      ['a', 'b', 'later'].map((id) => ({ id, body: `body of ${id}` })),
    );
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 1, dead: 1 });
    expect(await broker.stats(OTHER_QUEUE)).toMatchObject({ ready: 1 });
    await broker.ack([active!]);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 1 });
    expect(await broker.purge(QUEUE)).toEqual([]);
  });

  it('acks leased messages for good; acking again is harmless', async () => {
    const { broker } = await open();
    await broker.publish([envelope('a'), envelope('b'), envelope('c')]);
    const deliveries = await broker.reserve([QUEUE], 2);
    await broker.ack(deliveries);
    await broker.ack(deliveries);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 1, delayed: 0, active: 0, dead: 0 });
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['c']);
    const single = await publishAndReserve(broker, envelope('d'));
    await broker.ack([single]);
    expect(await broker.recoverLapsed([QUEUE])).toEqual({ requeued: [], dead: [] });
  });
}
