/** Broker conformance: the failed-task registry (acks that keep failed tasks, listing, TTL, bounds, discard). */
import type { Broker, Failure } from '../../broker';
import { untilPast } from '../wait';
import { envelope, ids, OTHER_QUEUE, publishAndReserve, QUEUE, type OpenBroker } from './harness';

const FAILURE: Failure = {
  task: 'demo.fail',
  error: { name: 'Error', message: 'boom', stack: 'Error: boom\n    at here' },
  attempts: 3,
};

/** Publishes, reserves and acks `id` as failed for good. */
async function failOne(broker: Broker, id: string, failure: Failure = FAILURE): Promise<void> {
  const delivery = await publishAndReserve(broker, envelope(id));
  await broker.ack([delivery], new Map([[id, failure]]));
}

/** Defines the failed-task registry cases (for brokers that keep one). */
export function failedCases(open: OpenBroker): void {
  it('an ack with a failure settles the message and keeps it, with its body, error and attempts', async () => {
    const { broker } = await open({ failedTtl: 60_000, failedLimit: 10 });
    const before = Date.now();
    await failOne(broker, 'a');
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
    const [kept, ...rest] = (await broker.listFailed?.(QUEUE)) ?? [];
    expect(rest).toEqual([]);
    expect(kept).toMatchObject({ id: 'a', queue: QUEUE, body: 'body of a', ...FAILURE });
    expect(kept?.at).toBeGreaterThanOrEqual(before - 1_000);
    expect(await broker.getFailed?.(QUEUE, ['a', 'missing'])).toEqual([kept, undefined]);
    expect(await broker.listFailed?.(OTHER_QUEUE)).toEqual([]);
    expect(await broker.queueNames?.()).toContain(QUEUE);
  });

  it('a plain ack in the same call keeps nothing; a stale ack keeps nothing', async () => {
    const { broker } = await open({ failedTtl: 60_000, failedLimit: 10 });
    await broker.publish([envelope('a'), envelope('b')]);
    const [a, b] = await broker.reserve([QUEUE], 2);
    await broker.ack([a!, b!], new Map([['b', FAILURE]]));
    expect(ids((await broker.listFailed?.(QUEUE)) ?? [])).toEqual(['b']);
    await broker.ack([b!], new Map([['b', FAILURE]]));
    expect(ids((await broker.listFailed?.(QUEUE)) ?? [])).toEqual(['b']);
  });

  it('keepFailed writes the entry while still leased; the ack keeps it; a lost lease keeps none', async () => {
    const { broker } = await open({ failedTtl: 60_000, failedLimit: 10 });
    expect(broker.keepFailed).toBeDefined();
    await broker.publish([envelope('a'), envelope('b')]);
    const [a, b] = await broker.reserve([QUEUE], 2);
    const failures = new Map([
      ['a', FAILURE],
      ['b', FAILURE],
    ]);
    await broker.keepFailed?.([a!], failures);
    expect(await broker.getFailed?.(QUEUE, ['a'])).toEqual([expect.objectContaining({ id: 'a', body: 'body of a' })]);
    expect(await broker.stats(QUEUE)).toMatchObject({ active: 2 });
    await broker.ack([a!], failures);
    expect(ids((await broker.listFailed?.(QUEUE)) ?? [])).toEqual(['a']);
    // A delivery that no longer holds its lease (a later one does) writes nothing.
    await broker.keepFailed?.([{ ...b!, deliveries: b!.deliveries + 1 }], failures);
    expect(ids((await broker.listFailed?.(QUEUE)) ?? [])).toEqual(['a']);
    await broker.ack([b!]);
  });

  it('a later delivery acked as done drops the entry an earlier one kept before its worker died', async () => {
    const { broker } = await open({ failedTtl: 60_000, failedLimit: 10, visibilityTimeout: 1_000 });
    const first = await publishAndReserve(broker, envelope('a'));
    const reservedAt = Date.now();
    await broker.keepFailed?.([first], new Map([['a', FAILURE]]));
    expect(ids((await broker.listFailed?.(QUEUE)) ?? [])).toEqual(['a']);
    await untilPast(reservedAt + 1_050);
    expect(await broker.recoverLapsed([QUEUE])).toEqual({ requeued: ['a'], dead: [] });
    const [second] = await broker.reserve([QUEUE], 1);
    expect(second?.deliveries).toBe(2);
    await broker.ack([second!]);
    expect(await broker.listFailed?.(QUEUE)).toEqual([]);
  });

  it('lists newest first, keeps at most failedLimit a queue (the oldest go), and discards by id or all', async () => {
    const { broker } = await open({ failedTtl: 60_000, failedLimit: 2 });
    for (const id of ['a', 'b', 'c']) await failOne(broker, id);
    expect(ids((await broker.listFailed?.(QUEUE)) ?? []).sort()).toEqual(['b', 'c']);
    expect(await broker.countFailed?.(QUEUE)).toBe(2);
    expect(await broker.countFailed?.(OTHER_QUEUE)).toBe(0);
    expect(await broker.discardFailed?.(QUEUE, ['b', 'missing'])).toBe(1);
    expect(ids((await broker.listFailed?.(QUEUE)) ?? [])).toEqual(['c']);
    expect(await broker.discardFailed?.(QUEUE, [])).toBe(0);
    expect(await broker.discardFailed?.(QUEUE)).toBe(1);
    expect(await broker.listFailed?.(QUEUE)).toEqual([]);
  });

  it('forgets entries once failedTtl has passed', async () => {
    const { broker } = await open({ failedTtl: 200, failedLimit: 10 });
    await failOne(broker, 'a');
    const kept = Date.now();
    expect(ids((await broker.listFailed?.(QUEUE)) ?? [])).toEqual(['a']);
    await untilPast(kept + 400);
    expect(await broker.listFailed?.(QUEUE)).toEqual([]);
    expect(await broker.getFailed?.(QUEUE, ['a'])).toEqual([undefined]);
  });

  it('keeps nothing with failedTtl 0', async () => {
    const { broker } = await open({ failedTtl: 0, failedLimit: 10 });
    await failOne(broker, 'a');
    expect(await broker.stats(QUEUE)).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
    expect(await broker.listFailed?.(QUEUE)).toEqual([]);
  });
}
