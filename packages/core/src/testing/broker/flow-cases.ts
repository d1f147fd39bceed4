/**
 * Broker conformance: flow control. Concurrency slots are taken at reserve and freed with the lease
 * (ack, requeue, dead letter, lost run, lapsed lease), waking the oldest held task; rate budgets hold
 * a task until its token is due; a held task never blocks the ones behind it.
 */
import type { MessageLimits } from '../../flow/message-limits';
import type { Envelope } from '../../message';
import { untilPast } from '../wait';
import { envelope, ids, QUEUE, reserveWhenReady, type OpenBroker } from './harness';

const LEASE = 1_000;

/** An envelope of task `task` limited to `limit` runs at once in scope `key`. */
function slotted(id: string, limit: number, key = 'slotted', task = 'slotted'): Envelope {
  return envelope(id, { limits: { task, concurrency: { limit, key } } });
}

/** An envelope of task `rated` limited to `limit` starts per `per` ms, with `burst`. */
function rated(id: string, limit: number, per: number, burst = 1): Envelope {
  const limits: MessageLimits = { task: 'rated', rate: { limit, per, burst, key: 'rated' } };
  return envelope(id, { limits });
}

/** Defines the flow-control cases. */
export function flowCases(open: OpenBroker): void {
  it('a concurrency limit holds the tasks past it aside while unlimited tasks behind them run', async () => {
    const { broker, writer } = await open();
    await writer.publish([slotted('s1', 2), slotted('s2', 2), slotted('s3', 2), slotted('s4', 2), envelope('free')]);
    const first = await broker.reserve([QUEUE], 10);
    expect(ids(first)).toEqual(['s1', 's2', 'free']);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 2, active: 3, dead: 0 });
    expect(await broker.reserve([QUEUE], 10)).toEqual([]);
    await broker.ack([first[0]!]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['s3']);
    await broker.ack([first[1]!]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['s4']);
  });

  it('each key of a keyed concurrency limit has slots of its own', async () => {
    const { broker, writer } = await open();
    await writer.publish([slotted('a1', 1, 'acct:a'), slotted('a2', 1, 'acct:a'), slotted('b1', 1, 'acct:b')]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['a1', 'b1']);
  });

  it('a slot is freed by a requeue, a dead letter and a lost run; the held task wakes a waiting worker', async () => {
    const { broker, writer } = await open({ maxDeliveries: 5 });
    await writer.publish([slotted('one', 1), slotted('two', 1)]);
    const [one] = await broker.reserve([QUEUE], 10);
    const woken = broker.waitForWork([QUEUE], new AbortController().signal);
    await broker.requeue(one!, { delay: 60_000 });
    await woken;
    const two = await reserveWhenReady(broker, 'two');
    await broker.deadLetter(two, 'test');
    await writer.publish([slotted('three', 1)]);
    const three = await reserveWhenReady(broker, 'three');
    await writer.publish([slotted('four', 1)]);
    expect(await broker.reserve([QUEUE], 10)).toEqual([]);
    expect(await broker.requeueLost(three, 'its child died')).toBe('requeued');
    const [next] = await broker.reserve([QUEUE], 10);
    expect(['three', 'four']).toContain(next?.id);
  });

  it('a lapsed lease frees its slot', async () => {
    const { broker, writer } = await open({ visibilityTimeout: LEASE });
    await writer.publish([slotted('lapses', 1), slotted('waits', 1)]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['lapses']);
    const reservedAt = Date.now();
    await untilPast(reservedAt + LEASE + 50);
    expect((await broker.recoverLapsed([QUEUE])).requeued).toEqual(['lapses']);
    // The lapsed task went back to the queue; the held one was woken by the freed slot: one runs.
    expect(await broker.reserve([QUEUE], 10)).toHaveLength(1);
    expect(await broker.reserve([QUEUE], 10)).toEqual([]);
  });

  it('a task held for a slot can be revoked before it runs', async () => {
    const { broker, writer } = await open();
    await writer.publish([slotted('runs', 1), slotted('held', 1)]);
    const [runs] = await broker.reserve([QUEUE], 10);
    expect(await broker.revoke({ id: 'held', terminate: false })).toEqual({ removed: true, body: 'body of held' });
    await broker.ack([runs!]);
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
  });

  it('a dead letter requeued keeps its limits: it waits for a slot like any other run', async () => {
    const { broker, writer } = await open();
    await writer.publish([slotted('buried', 1)]);
    const [buried] = await broker.reserve([QUEUE], 10);
    await broker.deadLetter(buried!, 'test');
    await writer.publish([slotted('runs', 1)]);
    const [runs] = await broker.reserve([QUEUE], 10);
    expect(await broker.requeueDead(QUEUE, ['buried'])).toBe(1);
    expect(await broker.reserve([QUEUE], 10)).toEqual([]);
    await broker.ack([runs!]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['buried']);
  });

  it('a revoked held task gives its turn to the next one held for the slot', async () => {
    const { broker, writer } = await open();
    await writer.publish([slotted('runs', 1), slotted('revoked', 1), slotted('next', 1)]);
    const [runs] = await broker.reserve([QUEUE], 10);
    expect((await broker.revoke({ id: 'revoked', terminate: false })).removed).toBe(true);
    await broker.ack([runs!]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['next']);
  });

  it('a rate limit starts a burst at once, holds the rest until their tokens are due, blocks no others', async () => {
    const { broker, writer } = await open();
    await writer.publish([
      rated('r1', 4, 1_000, 2),
      rated('r2', 4, 1_000, 2),
      rated('r3', 4, 1_000, 2),
      envelope('free'),
    ]);
    const sentAt = Date.now();
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['r1', 'r2', 'free']);
    expect(await broker.stats(QUEUE)).toMatchObject({ ready: 0, delayed: 1 });
    const r3 = await reserveWhenReady(broker, 'r3');
    // Its token was booked a quarter of a second after the burst: it never starts before that.
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(240);
    expect(r3.deliveries).toBe(1);
  });

  it('setRateLimit changes the rate of a task from the next reservation, and undefined restores it', async () => {
    const { broker, writer } = await open();
    const limits = [1, 2, 3, 4].map((n) => rated(`r${n}`, 1, 3_600_000));
    await writer.publish(limits);
    const setter = writer.setRateLimit ? writer : broker;
    await setter.setRateLimit?.('rated', { limit: 1, per: 3_600_000, burst: 3 });
    expect(await broker.rateLimits?.()).toEqual({ rated: { limit: 1, per: 3_600_000, burst: 3 } });
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['r1', 'r2', 'r3']);
    await setter.setRateLimit?.('rated', undefined);
    expect(await broker.rateLimits?.()).toEqual({});
  });
}
