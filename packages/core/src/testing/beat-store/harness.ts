/** What the beat store conformance cases share: the fixture contract, the opener, and entry builders. */
import type { BeatStore, StoredBeatEntry } from '../../beat-store';

/** One beat store under test, as the implementation's factory hands it over. */
export interface BeatStoreFixture {
  /** The store under test. */
  readonly store: BeatStore;
  /**
   * A second client of the same store (another process's view), when the implementation can have
   * one: changes then come from it, so notifications are tested across clients.
   */
  readonly peer?: BeatStore;
  /** Runs after every test: deletes only what this fixture stored (its prefix) and closes its clients. */
  cleanup(): Promise<void>;
}

/** Creates a store for one test; `prefix` is unique per call: key everything under it. */
export type BeatStoreFactory = (prefix: string) => Promise<BeatStoreFixture>;

/** A fixture as the cases see it: `writer` is the peer when there is one, else the store itself. */
export interface OpenedBeatStore extends BeatStoreFixture {
  readonly writer: BeatStore;
}

/** Opens a fixture; the suite cleans it up after the test. */
export type OpenBeatStore = () => Promise<OpenedBeatStore>;

/** A runtime entry named `name` firing every minute, with `fields` overriding any part. */
export function storedEntry(name: string, fields: Partial<StoredBeatEntry> = {}): StoredBeatEntry {
  return {
    name,
    task: 'conformance.tick',
    schedule: { kind: 'every', every: 60_000 },
    args: { json: [name] },
    options: { queue: 'conformance', priority: 3 },
    catchUp: 'once',
    updatedAt: 1_700_000_000_000,
    ...fields,
  };
}
