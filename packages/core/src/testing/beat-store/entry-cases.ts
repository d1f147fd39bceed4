/** Beat store conformance: runtime entries are stored as data, replaced by name, removed, and announced. */
import { deferred } from '../wait';
import { storedEntry, type OpenBeatStore } from './harness';

const T = 1_700_000_000_000;

/** Defines the runtime entry cases. */
export function entryCases(open: OpenBeatStore): void {
  it('putEntry stores an entry as data; a second put of the name replaces it', async () => {
    const { store, writer } = await open();
    expect(await store.listEntries()).toEqual([]);
    const first = storedEntry('poll', {
      schedule: { kind: 'crontab', expression: '*/5 * * * *', tz: 'Asia/Shanghai' },
      options: { expires: '1m' },
    });
    await writer.putEntry(first);
    await writer.putEntry(storedEntry('report', { schedule: { kind: 'at', at: T } }));
    const changed = storedEntry('poll', { args: { json: ['other'] }, catchUp: 'all', updatedAt: T + 1 });
    await writer.putEntry(changed);
    const listed = await store.listEntries();
    expect([...listed].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      changed,
      storedEntry('report', { schedule: { kind: 'at', at: T } }),
    ]);
  });

  it('removeEntry removes the entry and its last slot, and says whether there was one', async () => {
    const { store, writer } = await open();
    await writer.putEntry(storedEntry('poll'));
    await store.acquireLease('leader', 60_000);
    await store.syncSlots('leader', [{ name: 'poll', fingerprint: 'f', since: T }]);
    expect(await writer.removeEntry('poll')).toBe(true);
    expect(await writer.removeEntry('poll')).toBe(false);
    expect(await store.listEntries()).toEqual([]);
    expect(await store.lastSlots()).toEqual(new Map());
  });

  it('onEntriesChange tells listeners of every put and remove, from any client, until they unsubscribe', async () => {
    const { store, writer } = await open();
    let calls = 0;
    const sawTwo = deferred();
    const sawThree = deferred();
    const unsubscribe = await store.onEntriesChange(() => {
      calls += 1;
      if (calls === 2) sawTwo.resolve();
      if (calls === 3) sawThree.resolve();
    });
    await writer.putEntry(storedEntry('poll'));
    await writer.removeEntry('poll');
    await sawTwo.promise;
    await writer.removeEntry('poll'); // nothing removed: no notice
    await writer.putEntry(storedEntry('again'));
    await sawThree.promise;
    await unsubscribe();
    await writer.putEntry(storedEntry('unheard'));
    // A listener still subscribed sees the last put, so the unsubscribed one would have too.
    const heard = deferred();
    const unsubscribeLater = await store.onEntriesChange(() => heard.resolve());
    await writer.putEntry(storedEntry('heard'));
    await heard.promise;
    await unsubscribeLater();
    expect(calls).toBe(3);
  });
}
