/**
 * Sharded pub/sub on the test cluster: a sender's reply channel is subscribed (SSUBSCRIBE) on the
 * master that owns its slot only, nowhere with plain SUBSCRIBE, so notices stay on that shard; and
 * when the slot moves to another master, the subscription follows it and a wait still resolves.
 */
import type { Cluster } from 'ioredis';
import { KeySpace } from '@celeriac/redis/internal';
import {
  clusterMasters,
  RedisFixture,
  restoreSlot,
  moveSlot,
  slotOwner,
  type SlotMaster,
} from '@celeriac/test-support';
import { keySlot } from '../../../redis/src/connection/key-slot';

/** Subscribers of `channel` on `master`: sharded (SSUBSCRIBE) and plain (SUBSCRIBE). */
async function subscribers(master: SlotMaster, channel: string): Promise<{ sharded: number; plain: number }> {
  const [, sharded] = (await master.node.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
  const [, plain] = (await master.node.call('PUBSUB', 'NUMSUB', channel)) as [string, number];
  return { sharded: Number(sharded), plain: Number(plain) };
}

describe('sharded notices on a cluster', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('sharded')));
  afterEach(() => fixture.cleanup());

  /** A worker app and a sender app of their own (the sender's waits hear the worker through Redis). */
  async function apps() {
    const workerApp = fixture.app();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    workerApp.task('sharded.double', (n: number) => n * 2);
    workerApp.task('sharded.gated', async (n: number) => {
      started();
      await gate;
      return n * 2;
    });
    await workerApp.worker({ concurrency: 4, pool: 'inline' }).start();
    const sender = fixture.app();
    const channel = new KeySpace(fixture.prefix).replyChannel(sender.clientId);
    const masters = await clusterMasters(fixture.redis() as Cluster);
    const home = await slotOwner(masters, keySlot(channel));
    return { sender, channel, masters, home, release, running };
  }

  it("subscribes a sender's reply channel on its slot's master only, with SSUBSCRIBE", async () => {
    const { sender, channel, masters, home } = await apps();
    await expect(sender.sendTask<number>('sharded.double', [2])).resolves.toBe(4);
    for (const master of masters) {
      expect(await subscribers(master, channel)).toEqual({ sharded: master === home ? 1 : 0, plain: 0 });
    }
  });

  it('subscribes again on the new master when the channel’s slot moves, and a wait still resolves', async () => {
    const { sender, channel, masters, home, release, running } = await apps();
    const slot = keySlot(channel);
    const away = masters.find((master) => master !== home) as SlotMaster;
    await expect(sender.sendTask<number>('sharded.double', [1])).resolves.toBe(2);
    const gated = sender.sendTask<number>('sharded.gated', [21]);
    const result = gated.get({ timeout: 20_000 });
    await running;
    try {
      // Redis drops the subscriptions of a slot that moves away (a `sunsubscribe` of its own).
      await moveSlot(masters, slot, home, away);
      // The task ends after the move: its notice goes to the new owner, heard only once the
      // subscription followed (or read back when it is, as a missed notice is).
      release();
      await expect(result).resolves.toBe(42);
      expect(await subscribers(away, channel)).toEqual({ sharded: 1, plain: 0 });
      expect(await subscribers(home, channel)).toEqual({ sharded: 0, plain: 0 });
      await expect(sender.sendTask<number>('sharded.double', [5])).resolves.toBe(10);
    } finally {
      release();
      await restoreSlot(masters, slot, home);
    }
  });
});
