/**
 * Injects the scheduled faults: kill -9 of a worker or of a pool child, CLIENT KILL of a connection
 * to the broker, a broker kill -9 and restart from its append-only file, and garbage written straight
 * into the queue. Each is logged with its time, so that duplicates can be put down to their cause.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { injectReady, rawMessage, type RestartableRedis } from '@celeriac/test-support';
import type { Fleet } from './fleet';
import type { Fault } from './schedule';

/** A fault as it happened. */
export interface InjectedFault {
  at: number;
  kind: Fault['kind'];
  target: string;
  /** For a broker restart: when it answered again (epoch ms). */
  backAt?: number;
}

/** Garbage of each kind a producer could leave, in turn. */
const GARBAGE: ReadonlyArray<(task: string) => { id: string; body: string }> = [
  () => ({ id: randomUUID(), body: 'not json at all' }),
  (task) => rawMessage(task, [1, 2], { task: undefined, id: undefined }),
  () => rawMessage('soak.nonexistent', []),
  (task) => rawMessage(task, [1, 2], { version: 99 }),
];

/** Carries out faults against one run's broker and fleet. */
export class FaultInjector {
  readonly injected: InjectedFault[] = [];
  /** The ids of the garbage messages written. */
  readonly garbageIds: string[] = [];
  /** While the broker is down: when it went down. */
  downSince: number | undefined;
  private readonly admin: Redis;

  constructor(
    private readonly redis: RestartableRedis,
    private readonly fleet: Fleet,
    private readonly prefix: string,
  ) {
    this.admin = new Redis(redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.admin.on('error', () => undefined);
  }

  /** Injects one fault (a broker restart resolves once the broker answers again). */
  async inject(fault: Fault): Promise<void> {
    const at = Date.now();
    switch (fault.kind) {
      case 'worker-kill': {
        const name = pickOf(this.fleet.names(), fault.pick);
        if (name) this.fleet.killWorker(name);
        return this.note({ at, kind: fault.kind, target: name ?? 'none running' });
      }
      case 'child-kill': {
        const pools = this.fleet.names().filter((name) => name !== 'inline');
        const name = pickOf(pools, fault.pick);
        const killed = name !== undefined && this.fleet.killChild(name, fault.pick);
        return this.note({ at, kind: fault.kind, target: killed ? `${name}'s child` : 'none' });
      }
      case 'client-kill':
        return this.note({ at, kind: fault.kind, target: await this.killClient(fault.pick) });
      case 'broker-restart': {
        this.downSince = at;
        await this.redis.kill();
        await new Promise((done) => setTimeout(done, fault.downMs));
        await this.redis.restart();
        this.downSince = undefined;
        return this.note({ at, kind: fault.kind, target: `down ${fault.downMs} ms`, backAt: Date.now() });
      }
      case 'garbage':
        return this.note({ at, kind: fault.kind, target: await this.writeGarbage() });
    }
  }

  /** Closes the admin connection. */
  close(): void {
    this.admin.disconnect();
  }

  private note(fault: InjectedFault): void {
    this.injected.push(fault);
  }

  private async killClient(pick: number): Promise<string> {
    if (this.downSince !== undefined) return 'broker down';
    try {
      const list = (await this.admin.client('LIST')) as string;
      const ownId = String(await this.admin.client('ID'));
      const ids = list
        .split('\n')
        .map((line) => /(?:^| )id=(\d+)/.exec(line)?.[1])
        .filter((id): id is string => id !== undefined && id !== ownId);
      const id = pickOf(ids, pick);
      if (id === undefined) return 'no client';
      await this.admin.client('KILL', 'ID', id);
      return `client ${id} of ${ids.length}`;
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    }
  }

  private async writeGarbage(): Promise<string> {
    if (this.downSince !== undefined) return 'broker down';
    const make = GARBAGE[this.garbageIds.length % GARBAGE.length] as (task: string) => { id: string; body: string };
    const { id, body } = make('soak.add');
    try {
      await injectReady(this.admin, this.prefix, 'default', id, body);
      this.garbageIds.push(id);
      return id;
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    }
  }
}

function pickOf<T>(items: readonly T[], pick: number): T | undefined {
  return items[Math.floor(pick * items.length)];
}
