/**
 * The beat store on Redis: the scheduler's lease is a string with a TTL, the last fired slots (with
 * when each was claimed) and the runtime entries are hashes, all under the app-wide hash tag; every
 * step that reads and writes is one Lua script (`beat-*.lua`). Entry changes are announced on a channel.
 */
import type { BeatStore, ClaimOutcome, LeaseState, SlotMark, StoredBeatEntry } from '@celeriac/core';
import type { RedisConnection } from '../connection/connection';
import { KeySpace, type BeatKeys } from '../keys';
import { publishCommand } from '../connection/redis-client';
import { scriptKeys } from '../scripting/script-keys';
import { runScript } from '../scripting/scripts';
import { unavailable } from '../connection/unavailable';

/** The scripts of the beat store, each on the beat keys it names. */
type BeatScript = 'beatLease' | 'beatRelease' | 'beatSync' | 'beatClaim' | 'beatSettle' | 'beatPut' | 'beatRemove';

/** A BeatStore on Redis, sharing the app's connection set. */
export class RedisBeatStore implements BeatStore {
  private readonly keys: BeatKeys;
  private readonly channel: string;
  private closed = false;

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
  ) {
    const space = new KeySpace(prefix);
    this.keys = space.beat;
    this.channel = space.beatChannel;
    connection.retain();
  }

  async acquireLease(owner: string, ttl: number): Promise<LeaseState> {
    const [held, left] = await this.script<[number, number]>(
      'beatLease',
      [owner, Math.round(ttl)],
      'take the beat lease',
    );
    return { held: held === 1, ttl: Math.max(0, left) };
  }

  async releaseLease(owner: string): Promise<boolean> {
    return (await this.script<number>('beatRelease', [owner], 'release the beat lease')) === 1;
  }

  async leaseHolder(): Promise<{ owner: string; ttl: number } | undefined> {
    const replies = await this.call('read the beat lease', () =>
      this.connection.client.multi().get(this.keys.lease).pttl(this.keys.lease).exec(),
    );
    const owner = replies?.[0]?.[1];
    const ttl = Number(replies?.[1]?.[1]);
    return typeof owner === 'string' && ttl > 0 ? { owner, ttl } : undefined;
  }

  async syncSlots(owner: string, marks: readonly SlotMark[]): Promise<ReadonlyMap<string, number> | 'not-leader'> {
    const args: string[] = [owner];
    for (const mark of marks) args.push(mark.name, mark.fingerprint, String(mark.since));
    const reply = await this.script<string[] | number>('beatSync', args, 'sync the beat slots');
    if (!Array.isArray(reply)) return 'not-leader';
    return new Map(marks.map((mark, index) => [mark.name, Number(reply[index])]));
  }

  async claimSlot(owner: string, name: string, slot: number, at: number): Promise<ClaimOutcome> {
    const reply = await this.script<number>(
      'beatClaim',
      [owner, name, String(slot), String(Math.round(at))],
      'claim a beat slot',
    );
    return reply === 1 ? 'claimed' : reply === 0 ? 'stale' : 'not-leader';
  }

  async lastSlots(): Promise<ReadonlyMap<string, number>> {
    const all = await this.call('read the beat slots', () => this.connection.client.hgetall(this.keys.slots));
    return new Map(Object.entries(all).map(([name, slot]) => [name, Number(slot)]));
  }

  async lastClaims(): Promise<ReadonlyMap<string, { slot: number; at: number }>> {
    const [slots, claimed] = await this.call('read the beat claims', async () => {
      const replies =
        (await this.connection.client.multi().hgetall(this.keys.slots).hgetall(this.keys.claimed).exec()) ?? [];
      const failed = replies.find(([error]) => error)?.[0];
      if (failed) throw failed;
      return replies.map(([, value]) => (value ?? {}) as Record<string, string>);
    });
    const claims = new Map<string, { slot: number; at: number }>();
    for (const [name, at] of Object.entries(claimed ?? {})) {
      const slot = slots?.[name];
      if (slot !== undefined) claims.set(name, { slot: Number(slot), at: Number(at) });
    }
    return claims;
  }

  async settleClaim(name: string, slot: number): Promise<void> {
    await this.script('beatSettle', [name, String(slot)], 'settle a beat claim');
  }

  async listEntries(): Promise<StoredBeatEntry[]> {
    const all = await this.call('list the beat entries', () => this.connection.client.hgetall(this.keys.entries));
    return Object.entries(all).map(([name, text]) => readEntry(name, text));
  }

  async putEntry(entry: StoredBeatEntry): Promise<void> {
    await this.script(
      'beatPut',
      [entry.name, JSON.stringify(entry), this.channel, publishCommand(this.connection.client)],
      'store a beat entry',
    );
  }

  async removeEntry(name: string): Promise<boolean> {
    const removed = await this.script<number>(
      'beatRemove',
      [name, this.channel, publishCommand(this.connection.client)],
      'remove a beat entry',
    );
    return removed === 1;
  }

  async onEntriesChange(listener: () => void): Promise<() => Promise<void>> {
    const subscriber = this.connection.subscriber;
    // Announcements sent while the subscriber was disconnected are lost: treat a reconnect as a change.
    const stopReconnect = subscriber.onReconnect(listener);
    const unsubscribe = await subscriber.subscribe(this.channel, () => listener());
    return async () => {
      stopReconnect();
      await unsubscribe();
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }

  /** Runs a beat script on the beat keys it takes (script-keys.ts). */
  private script<T>(name: BeatScript, args: ReadonlyArray<string | number>, action: string): Promise<T> {
    return this.call(action, () => runScript<T>(this.connection.client, name, scriptKeys(name, this.keys), args));
  }

  private async call<T>(action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw unavailable(error, action, this.connection);
    }
  }
}

/**
 * An entry as stored under `name`. The field's name wins over the one inside (with a secret, the
 * signature covers the name, so an entry moved to another field no longer matches). A value that is
 * not a JSON object (written by hand) comes back as a bare name, which the scheduler refuses and
 * logs: one bad value must not keep every other entry from firing.
 */
function readEntry(name: string, text: string): StoredBeatEntry {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return { ...(value as StoredBeatEntry), name };
  } catch {
    // Not JSON: refused below, by name.
  }
  return { name } as StoredBeatEntry;
}
