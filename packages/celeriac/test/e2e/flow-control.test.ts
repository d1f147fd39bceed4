/**
 * Flow control end to end: real `celeriac worker` processes on Redis, limits that hold across all of
 * them. The fixture tasks (fixtures/flow-tasks.js, on the fixture app) record when each run started and ended; the
 * sender registers the same names and options, since limits and their keys are computed where a
 * message is built.
 */
import type { Celeriac } from 'celeriac';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REDIS_URL } from '@celeriac/test-support';
import { runCli } from './support/beat-cli';
import { mostAtOnce, mostStartsWithin, runsOf } from './support/flow-marks';
import { FIXTURE_APP as FLOW_APP, useE2e, type E2eContext } from './support/worker-process';

/** The flow tasks as the sender sees them: same names and options, bodies that never run here. */
function flowTasks(app: Celeriac) {
  const unused = () => 0;
  return {
    paired: app.task('flow.paired', (_i: number, _ms: number) => unused(), { concurrency: 2 }),
    perAccount: app.task('flow.perAccount', (_i: number, _account: string, _ms: number) => unused(), {
      concurrency: { limit: 1, key: (_i: number, account: string) => account },
    }),
    single: app.task('flow.single', (_i: number, _stall: boolean) => unused(), { concurrency: 1 }),
    rated: app.task('flow.rated', (_i: number) => unused(), { rateLimit: '20/s' }),
    free: app.task('flow.free', (_i: number) => unused()),
    unique: app.task('flow.unique', (_i: string) => unused(), { unique: true }),
    debounced: app.task('flow.debounced', (_i: number) => unused(), { debounce: '2s' }),
  };
}

describe('flow control across worker processes', () => {
  const e2e = useE2e('e2e-flow');

  function startWorkers(count: number, args: string[], env: NodeJS.ProcessEnv = {}) {
    const { workers } = e2e();
    return Array.from({ length: count }, () => workers.spawn('worker', ['-A', FLOW_APP, ...args], env));
  }

  it('concurrency 2 across 3 workers: never more than 2 run at once, and all 50 run', async () => {
    const { fixture } = e2e();
    const workers = startWorkers(3, ['-c', '4']);
    await Promise.all(workers.map((worker) => worker.ready()));
    const tasks = flowTasks(fixture.app());
    const results = Array.from({ length: 50 }, (_, i) => tasks.paired.delay(i, 20));
    await expect(Promise.all(results.map((result) => result.get({ timeout: 30_000 })))).resolves.toHaveLength(50);
    const runs = await runsOf(fixture.redis(), fixture.prefix, 'flow.paired');
    expect(runs).toHaveLength(50);
    expect(mostAtOnce(runs)).toBe(2);
  }, 40_000);

  it('a keyed concurrency limit runs one at a time per account, and accounts side by side', async () => {
    const { fixture } = e2e();
    const workers = startWorkers(2, ['-c', '4']);
    await Promise.all(workers.map((worker) => worker.ready()));
    const tasks = flowTasks(fixture.app());
    const results = Array.from({ length: 12 }, (_, i) => tasks.perAccount.delay(i, i % 2 === 0 ? 'a' : 'b', 30));
    await Promise.all(results.map((result) => result.get({ timeout: 30_000 })));
    const runs = await runsOf(fixture.redis(), fixture.prefix, 'flow.perAccount');
    const ofAccount = (parity: number) => runs.filter((run) => run.i % 2 === parity);
    expect([mostAtOnce(ofAccount(0)), mostAtOnce(ofAccount(1))]).toEqual([1, 1]);
  }, 40_000);

  it('a worker killed with kill -9 mid-task frees its slot within the lease: the held task runs', async () => {
    const { fixture, workers } = e2e();
    const env = { CELERIAC_TEST_VISIBILITY: '2s' };
    const doomed = workers.spawn('worker', ['-A', FLOW_APP, '-c', '2'], env);
    await doomed.ready();
    const tasks = flowTasks(fixture.app());
    const stalled = tasks.single.delay(1, true);
    await doomed.started(stalled.id);
    const held = tasks.single.delay(2, false);
    await expect(fixture.app().broker.stats('default')).resolves.toMatchObject({ active: 1, delayed: 1 });
    doomed.signal('SIGKILL');
    await doomed.exited;
    const survivor = workers.spawn('worker', ['-A', FLOW_APP, '-c', '2'], env);
    await survivor.ready();
    // The stalled run's lease lapses; the survivor's recovery frees the slot: both finish.
    await expect(Promise.all([stalled.get({ timeout: 20_000 }), held.get({ timeout: 20_000 })])).resolves.toEqual([
      1, 2,
    ]);
    const runs = await runsOf(fixture.redis(), fixture.prefix, 'flow.single');
    // Both ran to the end once, on the survivor (the killed run recorded nothing).
    expect(runs.map((run) => run.i).sort()).toEqual([1, 2]);
  }, 40_000);

  it('20/s across 2 workers of 4 slots: 200 starts stay within the rate, other tasks not held behind', async () => {
    const { fixture } = e2e();
    // Each run marks its admission as its lease deadline less the lease; a lease renewed before the
    // run read it (every visibility / 3: 10 s by default, about this test's length) would move the
    // marks of every task then admitted but not begun to the same instant. 10 min leases are not renewed here.
    const workers = startWorkers(2, ['-c', '4'], { CELERIAC_TEST_VISIBILITY: '10m' });
    await Promise.all(workers.map((worker) => worker.ready()));
    const tasks = flowTasks(fixture.app());
    const rated = Array.from({ length: 200 }, (_, i) => tasks.rated.delay(i));
    await Promise.all(rated.map((result) => result.sent));
    // Sent after all 200, in the same queue: they run long before the held ones are through.
    const free = Array.from({ length: 20 }, (_, i) => tasks.free.delay(i));
    await Promise.all([...rated, ...free].map((result) => result.get({ timeout: 30_000 })));
    const runs = await runsOf(fixture.redis(), fixture.prefix, 'flow.rated');
    expect(runs).toHaveLength(200);
    // Tokens come every 50 ms (the first at once); a worker may start a few late ones together.
    expect(mostStartsWithin(runs, 1_000)).toBeLessThanOrEqual(20 + 1 + 4);
    const starts = runs.map((run) => run.start);
    // 199 tokens after the first are 50 ms apart: the last start cannot come sooner.
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(199 * 50 - 100);
    const freeRuns = await runsOf(fixture.redis(), fixture.prefix, 'flow.free');
    expect(Math.max(...freeRuns.map((run) => run.start))).toBeLessThan(Math.max(...starts));
  }, 60_000);

  it('celeriac control rate-limit changes a rate for every worker, kept in Redis, and reset restores it', async () => {
    const { fixture, workers } = e2e();
    const cli = (...args: string[]) => runCli(['control', 'rate-limit', ...args, '-A', FLOW_APP], fixture.prefix);
    const client = fixture.app();
    const tasks = flowTasks(client);
    const results = [1, 2, 3].map((i) => tasks.rated.delay(i));
    await Promise.all(results.map((result) => result.sent));
    const set = await cli('flow.rated', '1/h', '--json');
    expect(set).toMatchObject({ code: 0 });
    expect(JSON.parse(set.stdout)).toEqual({ task: 'flow.rated', rate: { limit: 1, per: 3_600_000, burst: 1 } });
    const worker = workers.spawn('worker', ['-A', FLOW_APP, '-c', '4']);
    await worker.ready();
    await expect(results[0]!.get({ timeout: 20_000 })).resolves.toBe(1);
    // The other two hold tokens an hour and two away (the first is stored before its ack: active may be 1 still).
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 2 });
    const refused = await cli('flow.rated', 'fast');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/expected a rate like/);
    await expect(cli('flow.rated', 'reset')).resolves.toMatchObject({ code: 0 });
    await expect(client.control.rateLimits()).resolves.toEqual({});
  }, 40_000);

  it('unique: 100 concurrent same-argument sends from 4 processes run one task; all 100 get its result', async () => {
    const { fixture } = e2e();
    const handles = await sendBeforeAnyWorker(
      e2e(),
      [0, 1, 2, 3].map(() => ['unique', '25']),
    );
    expect(handles).toHaveLength(100);
    expect(new Set(handles.map((handle) => handle.id)).size).toBe(1);
    expect(handles.filter((handle) => !handle.deduplicated)).toHaveLength(1);
    expect(handles.every((handle) => handle.value === 'catalog')).toBe(true);
    await expect(runsOf(fixture.redis(), fixture.prefix, 'flow.unique')).resolves.toHaveLength(1);
  }, 60_000);
});

describe('debounce across a worker process', () => {
  const e2e = useE2e('e2e-debounce');

  it('10 sends within the window run once, with the last arguments, a window after the last send', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.spawn('worker', ['-A', FLOW_APP, '-c', '4']);
    await worker.ready();
    const tasks = flowTasks(fixture.app());
    const handles = Array.from({ length: 10 }, (_, i) => tasks.debounced.delay(i));
    const lastSent = Date.now();
    await expect(Promise.all(handles.map((handle) => handle.get({ timeout: 30_000 })))).resolves.toEqual(
      Array<number>(10).fill(9),
    );
    expect(new Set(handles.map((handle) => handle.id)).size).toBe(1);
    expect(handles.filter((handle) => handle.deduplicated)).toHaveLength(9);
    const [run, ...others] = await runsOf(fixture.redis(), fixture.prefix, 'flow.debounced');
    expect([run?.i, others]).toEqual([9, []]);
    // A task never starts before it is due: the window counts from the last send.
    expect(run?.start).toBeGreaterThanOrEqual(lastSent + 2_000);
    // Its run started: a send now opens a new window, and runs again.
    const after = tasks.debounced.delay(10);
    await expect(after.get({ timeout: 30_000 })).resolves.toBe(10);
    expect([after.deduplicated, after.id === handles[0]?.id]).toEqual([false, false]);
    await expect(runsOf(fixture.redis(), fixture.prefix, 'flow.debounced')).resolves.toHaveLength(2);
  }, 60_000);

  it('40 sends from 4 processes at once collapse into one task: one run, all 40 handles get its result', async () => {
    const { fixture } = e2e();
    const handles = await sendBeforeAnyWorker(
      e2e(),
      [0, 1, 2, 3].map((n) => ['debounced', '10', String(n * 10)]),
    );
    expect(handles).toHaveLength(40);
    expect(new Set(handles.map((handle) => handle.id)).size).toBe(1);
    expect(handles.filter((handle) => !handle.deduplicated)).toHaveLength(1);
    const [run, ...others] = await runsOf(fixture.redis(), fixture.prefix, 'flow.debounced');
    expect([run === undefined, others]).toEqual([false, []]);
    // The run has the arguments of one of the sends, and every handle its result.
    expect(run?.i).toBeLessThan(40);
    expect(handles.filter((handle) => handle.value !== run?.i)).toEqual([]);
  }, 60_000);
});

/** One handle as flow-sender.js prints it. */
interface SentHandle {
  id: string;
  deduplicated: boolean;
  value: unknown;
}

/**
 * Runs fixtures/flow-sender.js once for each of `runs` (its arguments) at the same time, starts a
 * worker once every send was accepted (so all of them meet the one waiting task), and resolves
 * with the handles they printed.
 */
async function sendBeforeAnyWorker({ fixture, workers }: E2eContext, runs: string[][]): Promise<SentHandle[]> {
  const senders = runs.map((args) => startSender(fixture.prefix, args));
  await Promise.all(senders.map((sender) => sender.sent));
  const worker = workers.spawn('worker', ['-A', FLOW_APP, '-c', '4']);
  await worker.ready();
  return (await Promise.all(senders.map((sender) => sender.output))).flat();
}

/** Starts fixtures/flow-sender.js: `sent` resolves when it printed `sent`, `output` with its handles. */
function startSender(prefix: string, args: string[]): { sent: Promise<void>; output: Promise<SentHandle[]> } {
  const child = spawn(process.execPath, [join(__dirname, 'fixtures/flow-sender.js'), ...args], {
    env: { ...process.env, REDIS_URL, CELERIAC_TEST_PREFIX: prefix },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let announce: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (announce = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'sent') announce();
    else lines.push(line);
  });
  const output = new Promise<SentHandle[]>((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(lines.join('')) as SentHandle[]) : reject(new Error(`sender exited ${code}`)),
    ),
  );
  return { sent: Promise.race([sent, output.then(() => undefined)]), output };
}
