/**
 * Resharding the test cluster by hand, as `redis-cli --cluster reshard` does: one slot moves from its
 * master to another with `CLUSTER SETSLOT ... IMPORTING/MIGRATING`, `MIGRATE ... KEYS` and
 * `CLUSTER SETSLOT ... NODE`, so tests can run traffic through the MOVED/ASK/TRYAGAIN replies of a
 * slot in flight.
 */
import type { Cluster, Redis } from 'ioredis';

/** A master of the cluster: its connection, node id and address. */
export interface SlotMaster {
  node: Redis;
  id: string;
  host: string;
  port: number;
}

/** The masters of `cluster` with their node ids (the cluster client must be connected). */
export async function clusterMasters(cluster: Cluster): Promise<SlotMaster[]> {
  await cluster.ping();
  return Promise.all(
    cluster.nodes('master').map(async (node) => ({
      node,
      id: String(await node.call('CLUSTER', 'MYID')),
      host: node.options.host ?? '127.0.0.1',
      port: node.options.port ?? 6379,
    })),
  );
}

/** The master that serves `slot`, as that master's own view of the cluster says. */
export async function slotOwner(masters: SlotMaster[], slot: number): Promise<SlotMaster> {
  for (const master of masters) {
    const nodes = String(await master.node.call('CLUSTER', 'NODES'));
    const mine = nodes.split('\n').find((line) => line.includes('myself'));
    if (mine && ownsSlot(mine, slot)) return master;
  }
  throw new Error(`No master of the test cluster serves slot ${slot}.`);
}

/** True when a CLUSTER NODES line lists `slot` among its ranges. */
function ownsSlot(line: string, slot: number): boolean {
  return line
    .split(' ')
    .slice(8)
    .some((range) => {
      if (range.startsWith('[')) return false;
      const [low, high = low] = range.split('-').map(Number);
      return low !== undefined && high !== undefined && slot >= low && slot <= high;
    });
}

/** Options of {@link moveSlot}. */
export interface MoveSlotOptions {
  /** Keys per MIGRATE call; few keys a call stretch the window in which the slot is split. */
  keysPerCall?: number;
  /** Called after each MIGRATE call, e.g. to let traffic through while the slot is split. */
  afterEachCall?: () => Promise<void>;
}

/**
 * Moves `slot` with its keys from `source` to `target`, then tells every master the new owner. While
 * it runs, the slot's keys sit partly on each node: clients get ASK for keys already moved and
 * TRYAGAIN for a multi-key call whose keys are split.
 */
export async function moveSlot(
  masters: SlotMaster[],
  slot: number,
  source: SlotMaster,
  target: SlotMaster,
  options: MoveSlotOptions = {},
): Promise<void> {
  const { keysPerCall = 1, afterEachCall = async () => undefined } = options;
  await target.node.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id);
  await source.node.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id);
  for (;;) {
    const keys = (await source.node.call('CLUSTER', 'GETKEYSINSLOT', slot, keysPerCall)) as string[];
    if (keys.length === 0) break;
    await source.node.call('MIGRATE', target.host, target.port, '', 0, 10_000, 'KEYS', ...keys);
    await afterEachCall();
  }
  // The target first: once the source lets go, clients it redirects must find the target ready.
  await target.node.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id);
  await source.node.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id);
  for (const master of masters) {
    if (master !== source && master !== target) await master.node.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id);
  }
}

/**
 * Puts `slot` back on `owner` after a move that may have failed half-way: clears IMPORTING/MIGRATING
 * on every master, and moves the slot back if another master took it.
 */
export async function restoreSlot(masters: SlotMaster[], slot: number, owner: SlotMaster): Promise<void> {
  for (const master of masters) await master.node.call('CLUSTER', 'SETSLOT', slot, 'STABLE');
  const current = await slotOwner(masters, slot);
  if (current !== owner) await moveSlot(masters, slot, current, owner, { keysPerCall: 100 });
}

/**
 * How many TRYAGAIN and ASK replies the masters have given since they started (Redis's own error
 * statistics): a test waits for these to grow to know that clients met a slot in flight.
 */
export async function slotMoveReplies(masters: SlotMaster[]): Promise<number> {
  const infos = await Promise.all(masters.map((master) => master.node.info('errorstats')));
  return infos
    .flatMap((info) => [...info.matchAll(/^errorstat_(?:TRYAGAIN|ASK):count=(\d+)/gm)])
    .reduce((sum, match) => sum + Number(match[1]), 0);
}
