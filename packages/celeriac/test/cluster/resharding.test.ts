/**
 * Resharding under load on the local test cluster: the slot of a busy queue moves from its master to
 * another and back (`CLUSTER SETSLOT ... MIGRATING/IMPORTING`, `MIGRATE` one key at a time, `SETSLOT
 * NODE`) while a worker runs and a sender sends 1,000 tasks. Every task finishes once acknowledged, and
 * every result is readable. The slot ends where it started, for the suites that share the cluster.
 */
import type { Cluster } from 'ioredis';
import { KeySpace } from '@celeriac/redis/internal';
import {
  clusterMasters,
  moveSlot,
  RedisFixture,
  restoreSlot,
  slotMoveReplies,
  slotOwner,
  type SlotMaster,
} from '@celeriac/test-support';
import { keySlot } from '../../../redis/src/connection/key-slot';

const TASKS = 1_000;
const BATCH = 50;
/** How many TRYAGAIN/ASK replies the split slot hands out before its migration goes on. */
const SPLIT_REPLIES = 40;

describe('resharding a busy queue’s slot', () => {
  let fixture: RedisFixture;

  beforeEach(() => {
    fixture = new RedisFixture('reshard');
  });

  afterEach(() => fixture.cleanup());

  it('moves to another master and back while 1,000 tasks are sent and run: none lost, results readable', async () => {
    const queue = 'busy';
    const slot = keySlot(new KeySpace(fixture.prefix).queue(queue).ready);
    const admin = fixture.redis() as Cluster;
    const masters = await clusterMasters(admin);
    const home = await slotOwner(masters, slot);
    const away = masters.find((master) => master !== home) as SlotMaster;

    const workerApp = fixture.app();
    workerApp.task('reshard.double', (n: number) => n * 2);
    await workerApp.worker({ queues: [queue], concurrency: 20, pool: 'inline' }).start();
    const sender = fixture.app();
    const results: Array<ReturnType<typeof sender.sendTask<number>>> = [];
    // Batches go out one after another for as long as the slot moves, and on to TASKS.
    const send = async () => {
      for (let n = 0; n < TASKS; n += BATCH) {
        const batch = Array.from({ length: BATCH }, (_, i) =>
          sender.sendTask<number>('reshard.double', [n + i], { queue }),
        );
        results.push(...batch);
        await Promise.all(batch.map((result) => result.sent));
      }
    };
    // Once the first key moved, the slot is split: the migration waits there until the sender and the
    // worker met it (Redis answered them TRYAGAIN or ASK) long enough to outlast ioredis's own retries.
    let splitOnce = false;
    const holdTheSplit = async () => {
      if (splitOnce) return;
      splitOnce = true;
      const before = await slotMoveReplies(masters);
      const splitAt = Date.now();
      const deadline = Date.now() + 30_000;
      while ((await slotMoveReplies(masters)) < before + SPLIT_REPLIES) {
        if (Date.now() > deadline) throw new Error('No client met the split slot within 30 s');
        // Polling Redis's counters, not waiting out a race: a pause keeps the polling off the masters.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const replies = (await slotMoveReplies(masters)) - before;
      process.stdout.write(`resharding: ${replies} TRYAGAIN/ASK replies in ${Date.now() - splitAt} ms of split\n`);
    };
    try {
      const sent = send();
      await results[0]?.sent;
      await moveSlot(masters, slot, home, away, { afterEachCall: holdTheSplit });
      expect((await slotOwner(masters, slot)).id).toBe(away.id);
      splitOnce = false;
      await moveSlot(masters, slot, away, home, { afterEachCall: holdTheSplit });
      await sent;
      const values = await Promise.all(results.map((result) => result.get({ timeout: 60_000 })));
      expect(values).toEqual(Array.from({ length: TASKS }, (_, n) => n * 2));
      const records = await sender.backend.getMany(results.map((result) => result.id));
      expect(records.filter((record) => record?.state !== 'SUCCESS')).toEqual([]);
    } finally {
      await restoreSlot(masters, slot, home);
    }
  }, 120_000);
});
