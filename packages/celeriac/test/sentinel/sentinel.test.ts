/**
 * Apps on `redis+sentinel://`, on the test Sentinel setup (a master, a replica, three Sentinels,
 * started by the jest project `sentinel`). One file, so that its tests run one after the other: the
 * last one kills the master.
 *
 * First a worker runs tasks sent through the Sentinels, beat keeps its entries there, and
 * `durability: 'replicated'` sends reach the replica. Then a master failover under load: the master
 * is killed (SIGKILL) while a worker runs 2,000 tasks; the Sentinels promote the replica, every
 * connection of both apps follows it by itself, tasks that were running come back through their
 * leases, and every task finishes. Sends use `durability: 'replicated'`, so none that was
 * acknowledged can be lost with the master. The test reports the duplicates (tasks run twice) and
 * how long the failover and the recovery took.
 */
import { every, type FiredSlot } from 'celeriac';
import { deferred } from '@celeriac/core/testing';
import {
  adminClient,
  captureLogs,
  killSentinelMaster,
  RedisFixture,
  restartSentinelServer,
  SENTINEL_URL,
  sentinelFailover,
  sentinelMasterPort,
  switchSentinelMaster,
  untilSentinelsHealthy,
} from '@celeriac/test-support';

/** The port of the server that is not the master now. */
async function replicaPort(): Promise<number> {
  const master = await sentinelMasterPort();
  return master === 6390 ? 6391 : 6390;
}

describe('an app on Redis Sentinel', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('sentinel-app', SENTINEL_URL)));
  afterEach(() => fixture.cleanup());

  it('runs tasks through the master the Sentinels name, and keeps their records there', async () => {
    const workerApp = fixture.app();
    workerApp.task('sentinel.add', (a: number, b: number) => a + b);
    await workerApp.worker({ concurrency: 10 }).start();
    const add = fixture.app().task('sentinel.add', (a: number, b: number) => a + b);
    const results = add.delayMany(Array.from({ length: 200 }, (_, n) => [n, 1] as [number, number]));
    await expect(Promise.all(results)).resolves.toEqual(Array.from({ length: 200 }, (_, n) => n + 1));
    const admin = fixture.redis();
    expect(await admin.info('server')).toContain(`tcp_port:${await sentinelMasterPort()}`);
    expect(await admin.exists(`${fixture.prefix}:result:${results[0]!.id}`)).toBe(1);
  });

  it('keeps beat entries on the master: an entry added by one app fires in another', async () => {
    const scheduler = fixture.app().beat.scheduler({ lease: '2s' });
    await scheduler.start();
    const fired = deferred<FiredSlot>();
    scheduler.on('fired', (slot) => fired.resolve(slot));
    await fixture.app().beat.add('tick', { task: 'sentinel.tick', schedule: every('100ms') });
    expect((await fired.promise).id).toMatch(/^beat:tick:/);
    await scheduler.close();
  });

  it("with durability: 'replicated', a task is on the replica once sent, and runs", async () => {
    const echo = fixture.app({ durability: 'replicated' }).task('sentinel.echo', (text: string) => text);
    const result = echo.delay('kept');
    await result.sent;
    const replica = adminClient(`redis://127.0.0.1:${await replicaPort()}`);
    try {
      expect(await replica.hexists(`${fixture.prefix}:{${fixture.prefix}:default}:messages`, result.id)).toBe(1);
    } finally {
      replica.disconnect();
    }
    const workerApp = fixture.app({ durability: 'replicated' });
    workerApp.task('sentinel.echo', (text: string) => text);
    await workerApp.worker().start();
    await expect(result).resolves.toBe('kept');
  });
});

/** What one run through a failover saw. */
interface FailoverRun {
  /** Tasks that ran more than once, counted once per extra run. */
  duplicates: number;
  /** Milliseconds from the master going away until Sentinel named another. */
  newMasterAfter: number;
  /** The longest time the sender heard of no finished task (the outage as the sender saw it), ms. */
  longestGap: number;
  /** Milliseconds from the master going away until every task had finished. */
  allDoneAfter: number;
}

/**
 * Sends `tasks` tasks (with `durability: 'replicated'`, all confirmed before the worker starts, so
 * no send is in flight when the master goes), runs them on a worker of 20, and at the `failAt`th
 * run has `takeMaster` take the master away (it resolves with the old master's port once it is
 * gone); the tasks running then finish after Sentinel named the new master. Checks that every task
 * ran and returned its value.
 */
async function runThroughFailover(
  fixture: RedisFixture,
  tasks: number,
  failAt: number,
  takeMaster: () => Promise<number>,
): Promise<FailoverRun> {
  const { logger, logs } = captureLogs();
  const workerApp = fixture.app({ visibilityTimeout: '2s' });
  const runs = new Map<number, number>();
  let total = 0;
  let goneAt = 0;
  let newMasterAt = 0;
  let failover: Promise<void> | undefined;
  const fail = async () => {
    const oldMaster = await takeMaster();
    goneAt = Date.now();
    await sentinelFailover(oldMaster);
    newMasterAt = Date.now();
  };
  workerApp.task('failover.work', async (n: number) => {
    runs.set(n, (runs.get(n) ?? 0) + 1);
    total += 1;
    // The tasks running then finish only once Sentinel named the new master: their results and acks
    // meet the failover whatever the machine's speed.
    if (total >= failAt) await (failover ??= fail());
    return n;
  });
  const work = fixture.app({ durability: 'replicated' }).task('failover.work', (n: number) => n);
  const inputs = Array.from({ length: tasks }, (_, n) => n);
  const results = work.delayMany(inputs.map((n) => [n] as [number]));
  await Promise.all(results.map((result) => result.sent));
  await workerApp.worker({ concurrency: 20, logger }).start();

  const arrivals: number[] = [];
  const values = await Promise.all(
    results.map(async (result) => {
      const value = await result.get({ timeout: 60_000 });
      arrivals.push(Date.now());
      return value;
    }),
  ).catch((error: unknown) => {
    // Says where it stuck: how far the worker got, whether the failover happened, what it logged.
    const state = {
      done: arrivals.length,
      runs: total,
      distinct: runs.size,
      goneAt,
      newMasterAt,
      logs: logs.slice(-3),
    };
    throw new Error(`${String(error)}; ${JSON.stringify(state)}`);
  });
  expect(failover).toBeDefined();
  await failover;
  expect(values).toEqual(inputs);
  expect([...runs.keys()].sort((a, b) => a - b)).toEqual(inputs);
  return {
    duplicates: [...runs.values()].reduce((sum, count) => sum + count - 1, 0),
    newMasterAfter: newMasterAt - goneAt,
    longestGap: Math.max(...arrivals.slice(1).map((at, index) => at - (arrivals[index] as number))),
    allDoneAfter: (arrivals.at(-1) as number) - goneAt,
  };
}

/** One line with the figures of a run (reported, not asserted: they depend on timing and load). */
function report(what: string, tasks: number, run: FailoverRun): void {
  process.stdout.write(
    `sentinel ${what}: ${tasks} tasks, ${run.duplicates} ran twice; new master after ${run.newMasterAfter} ms, ` +
      `longest time without a result ${run.longestGap} ms, all done ${run.allDoneAfter} ms after the master went\n`,
  );
}

describe('a Sentinel failover under load', () => {
  let fixture: RedisFixture;
  let killedPort: number | undefined;
  beforeEach(() => (fixture = new RedisFixture('sentinel-failover', SENTINEL_URL)));
  afterEach(async () => {
    await fixture.cleanup();
    // The setup can fail over again: the killed server back as a replica of the new master, in sync.
    if (killedPort !== undefined) await restartSentinelServer(killedPort);
    else await untilSentinelsHealthy();
    killedPort = undefined;
  }, 60_000);

  it('a switchover (the master turned into a replica while it runs): every task finishes', async () => {
    const run = await runThroughFailover(fixture, 1_000, 250, switchSentinelMaster);
    report('switchover', 1_000, run);
  }, 90_000);

  it('kill -9 of the master under 2,000 tasks: every task finishes, none is lost', async () => {
    const run = await runThroughFailover(fixture, 2_000, 500, async () => (killedPort = await killSentinelMaster()));
    report('kill -9', 2_000, run);
  }, 90_000);
});
