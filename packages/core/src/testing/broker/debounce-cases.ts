/**
 * Broker conformance: debounce. While a task waits out its key's window (delayed, not yet leased nor
 * held for a limit), a debounced send of the key is not stored and names that task; the sender's
 * replacement, encoded under that id, swaps the task's message and start time. Once the task left
 * its wait, a replacement is missed and a send opens a new window.
 */
import type { Envelope } from '../../message';
import { untilPast } from '../wait';
import { envelope, ids, QUEUE, reserveWhenReady, type OpenBroker } from './harness';

const WINDOW = 60_000;

/** A debounced send of key `key`, due in `due` ms. */
function debounced(id: string, key = 'digest', due = WINDOW): Envelope {
  return envelope(id, { eta: Date.now() + due, limits: { task: 'digest', debounce: { key, window: WINDOW } } });
}

/** The replacement of waiting task `into`'s message by send `from`'s, due in `due` ms. */
function replacement(into: string, from: string, due = WINDOW, key = 'digest'): Envelope {
  return { ...debounced(into, key, due), body: `body of ${from}`, replaces: true };
}

/** Defines the debounce cases. */
export function debounceCases(open: OpenBroker): void {
  it('a send while a task of its key waits names it; the replacement swaps its message and start time', async () => {
    const { broker, writer } = await open();
    expect(await writer.publish([debounced('d1'), debounced('d2'), debounced('other', 'digest:2')])).toEqual([
      'published',
      { debounceInto: 'd1' },
      'published',
    ]);
    expect(await writer.publish([replacement('d1', 'd2')])).toEqual([{ duplicateOf: 'd1' }]);
    expect(await broker.stats(QUEUE)).toMatchObject({ ready: 0, delayed: 2 });
    // The last replacement wins, also its start time: d1 now comes due at once with d3's message.
    expect(await writer.publish([debounced('d3')])).toEqual([{ debounceInto: 'd1' }]);
    expect(await writer.publish([replacement('d1', 'd3', 20)])).toEqual([{ duplicateOf: 'd1' }]);
    const delivery = await reserveWhenReady(broker, 'd1');
    expect(delivery.body).toBe('body of d3');
    expect(await broker.stats(QUEUE)).toMatchObject({ ready: 0, delayed: 1, active: 1 });
  });

  it('once its task is leased or revoked, a replacement is missed and a send opens a new window', async () => {
    const { broker, writer } = await open();
    await writer.publish([debounced('d1', 'digest', 20)]);
    await reserveWhenReady(broker, 'd1');
    expect(await writer.publish([replacement('d1', 'late')])).toEqual(['missed']);
    expect(await writer.publish([debounced('d2'), debounced('d3')])).toEqual(['published', { debounceInto: 'd2' }]);
    await broker.revoke({ id: 'd2', terminate: false });
    expect(await writer.publish([replacement('d2', 'd3')])).toEqual(['missed']);
    expect(await writer.publish([debounced('d4')])).toEqual(['published']);
    // A replacement meant for a task that is gone names the one now waiting.
    expect(await writer.publish([replacement('d2', 'd5')])).toEqual([{ debounceInto: 'd4' }]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual([]);
  });

  it('a task held for a concurrency slot after its window is no longer waiting it out', async () => {
    const { broker, writer } = await open();
    const limited = (id: string, due: number): Envelope =>
      envelope(id, {
        eta: Date.now() + due,
        limits: { task: 'digest', concurrency: { limit: 1, key: 'digest' }, debounce: { key: 'digest', window: 20 } },
      });
    await writer.publish([limited('d1', 20)]);
    await reserveWhenReady(broker, 'd1');
    const second = limited('d2', 20);
    await writer.publish([second]);
    // d2 comes due and is held: d1 holds the only slot. (Past its own eta: a deadline taken before
    // the envelope was made can fall a millisecond short of it, and d2 would still be waiting.)
    await untilPast(second.eta!);
    expect(await broker.reserve([QUEUE], 10)).toEqual([]);
    expect(await broker.stats(QUEUE)).toMatchObject({ delayed: 1, active: 1 });
    expect(await writer.publish([limited('d3', WINDOW)])).toEqual(['published']);
  });
}
