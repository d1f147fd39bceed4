/**
 * The operator commands against real worker processes: inspect, control, status, queue pause and
 * resume, call, result, revoke; and the API they share (app.control, app.queues).
 */
import type { HeldTask } from 'celeriac';
import { untilTrue } from '@celeriac/test-support';
import { runCli } from './support/beat-cli';
import { FIXTURE_APP, useE2e, type WorkerProcess } from './support/worker-process';

const TIMEOUT = { timeout: 15_000 };

describe('operations: inspect, control, queue, call', () => {
  const e2e = useE2e('e2e-ops');
  const cli = (...args: string[]) => runCli([...args, '-A', FIXTURE_APP], e2e().fixture.prefix);
  const open = (name: string) => e2e().fixture.redis().lpush(`${e2e().fixture.prefix}:marks:${name}`, 'open');

  /** An inline worker unless `args` name a pool: quick to start on a busy machine. */
  async function worker(hostname: string, args: string[] = []): Promise<WorkerProcess> {
    const pool = args.includes('--pool') ? [] : ['--pool', 'inline'];
    const started = e2e().workers.start(['--hostname', hostname, '-c', '2', '--loglevel', 'info', ...pool, ...args]);
    await started.ready();
    return started;
  }

  it('inspect active shows the task a worker runs now; ping answers from two workers; status lists both', async () => {
    const one = await worker('w-one');
    const two = await worker('w-two');
    const client = e2e().fixture.app();
    const long = client.sendTask<string>('e2e.gate', ['done', 'active'], { taskId: 'long-1' });
    await Promise.race([one.started(long.id), two.started(long.id)]);

    const pinged = await cli('control', 'ping', '--json', '--timeout', '2s');
    expect(pinged.code).toBe(0);
    expect(JSON.parse(pinged.stdout)).toEqual({ 'w-one': { pong: true }, 'w-two': { pong: true } });

    const active = await cli('inspect', 'active', '--json', '--timeout', '2s');
    expect(active.code).toBe(0);
    const held = Object.values(
      JSON.parse(active.stdout) as Record<string, Array<{ id: string; name: string; args: string; started?: number }>>,
    ).flat();
    expect(held).toEqual([
      expect.objectContaining({
        id: 'long-1',
        name: 'e2e.gate',
        args: '["done","active"]',
        started: expect.any(Number),
      }),
    ]);
    const table = await cli('inspect', 'active', '--timeout', '2s');
    expect(table.stdout).toMatch(/long-1 +e2e\.gate +default +\["done","active"\]/);
    // The gate task waits 20 s at most: let it finish before the slower checks.
    await open('active');
    await expect(long.get(TIMEOUT)).resolves.toBe('done');

    const registered = await cli('inspect', 'registered', '--worker', 'w-two', '--json');
    expect(Object.keys(JSON.parse(registered.stdout) as object)).toEqual(['w-two']);
    expect((JSON.parse(registered.stdout) as Record<string, string[]>)['w-two']).toContain('e2e.add');

    const status = await cli('status', '--json', '--timeout', '2s');
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout) as {
      workers: Array<{ hostname: string; concurrency: number; pool: string; processed: number }>;
      queues: Array<{ name: string; active: number }>;
    };
    expect(parsed.workers.map((w) => w.hostname)).toEqual(['w-one', 'w-two']);
    expect(parsed.workers.map((w) => w.processed)).toEqual(expect.arrayContaining([1]));
    expect(parsed.queues).toEqual([expect.objectContaining({ name: 'default', ready: 0, active: 0, paused: false })]);
  }, 60_000);

  it.each(['prefork', 'fork'])(
    'inspect active names the %s pool child that runs the task',
    async (pool) => {
      const w = await worker(`w-${pool}`, ['--pool', pool]);
      const client = e2e().fixture.app();
      const long = client.sendTask<string>('e2e.gate', ['done', `child-${pool}`]);
      await w.started(long.id);
      const replies = await client.control.inspect('active', { destination: `w-${pool}`, timeout: '5s' });
      const held = replies[0]?.value as HeldTask[];
      expect(held).toEqual([expect.objectContaining({ id: long.id, childPid: expect.any(Number) })]);
      // A live child of this worker, not the worker itself.
      const childPid = held[0]?.childPid;
      expect(childPid).not.toBe(w.child.pid);
      expect(w.children().map((child) => child.pid)).toContain(childPid);
      const table = await cli('inspect', 'active', '--worker', `w-${pool}`, '--timeout', '5s');
      expect(table.stdout).toMatch(new RegExp(`${long.id} +e2e\\.gate .* ago +${String(childPid)}\\n`));
      await open(`child-${pool}`);
      await expect(long.get(TIMEOUT)).resolves.toBe('done');
    },
    60_000,
  );

  it('a prefork worker tells tasks queued in its child from the one it runs: inspect, status, heartbeat', async () => {
    // One child: what the worker holds beyond the task it runs waits, in the child's queue or in prefetch.
    const w = await worker('w-split', ['--pool', 'prefork', '-c', '1']);
    const client = e2e().fixture.app();
    const tasks = ['one', 'two', 'three'].map((name) => client.sendTask<string>('e2e.gate', [name, `split-${name}`]));
    await Promise.all(tasks.map((task) => task.sent));
    await w.started(tasks[0]?.id as string);
    const held = async (what: 'active' | 'reserved') =>
      ((await client.control.inspect(what, { destination: 'w-split', timeout: '5s' }))[0]?.value as HeldTask[]).map(
        (task) => task.id,
      );
    // The worker reserves one for its slot and one ahead (prefetch = concurrency) at least.
    await untilTrue(async () => (await held('reserved')).length >= 1, 'a reserved task');
    expect(await held('active')).toEqual([tasks[0]?.id]);
    expect(await held('reserved')).not.toContain(tasks[0]?.id);

    const status = await cli('status', '--json', '--timeout', '2s');
    const [stats] = (JSON.parse(status.stdout) as { workers: Array<{ active: number; reserved: number }> }).workers;
    expect(stats).toMatchObject({ active: 1, reserved: expect.any(Number) });
    expect(stats?.reserved).toBeGreaterThanOrEqual(1);
    await untilTrue(async () => {
      const [record] = (await client.broker.listWorkers?.()) ?? [];
      return record?.busy === 1 && record.active === 1 + (stats?.reserved ?? 0);
    }, 'a heartbeat with one busy slot');

    for (const name of ['one', 'two', 'three']) await open(`split-${name}`);
    await expect(Promise.all(tasks.map((task) => task.get(TIMEOUT)))).resolves.toEqual(['one', 'two', 'three']);
  }, 60_000);

  it('a paused queue holds its tasks until resume, also across a worker restart', async () => {
    const client = e2e().fixture.app();
    await expect(cli('queue', 'pause', 'default')).resolves.toMatchObject({ code: 0, stdout: 'Paused default.\n' });
    const first = await worker('w-pause');
    const held = client.sendTask<number>('e2e.add', [1, 2]);
    await held.sent;
    // The worker is idle and consuming: it answers, yet does not take the task.
    await expect(client.control.inspect('active', { destination: 'w-pause' })).resolves.toEqual([
      { hostname: 'w-pause', ok: true, value: [] },
    ]);
    await expect(client.queues.list()).resolves.toEqual([
      expect.objectContaining({ name: 'default', ready: 1, paused: true }),
    ]);
    first.signal('SIGTERM');
    await first.exited;

    await worker('w-pause-2');
    await expect(client.queues.isPaused('default')).resolves.toBe(true);
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 1, active: 0 });
    const listed = await cli('queue', 'list');
    expect(listed.stdout).toMatch(/default +1 +0 +0 +0 +0 +yes/);

    await expect(cli('queue', 'resume', 'default')).resolves.toMatchObject({ code: 0 });
    await expect(held.get(TIMEOUT)).resolves.toBe(3);
  }, 60_000);

  it('pool-grow raises concurrency, cancel-consumer stops reserving a queue, shutdown drains a worker', async () => {
    const client = e2e().fixture.app();
    const w = await worker('w-ctl', ['-Q', 'default,extra']);
    // A prefork worker answers once its new children are up: allow for that.
    const grown = await cli('control', 'pool-grow', '3', '--json', '--worker', 'w-ctl', '--timeout', '20s');
    expect(JSON.parse(grown.stdout)).toEqual({ 'w-ctl': { concurrency: 5 } });
    const stats = await client.control.inspect('stats');
    expect(stats[0]?.value).toMatchObject({ concurrency: 5 });
    // Five gates run at once on the grown worker.
    const gates = Array.from({ length: 5 }, (_, i) => client.sendTask<number>('e2e.gate', [i, 'grow']));
    await Promise.all(gates.map((gate) => w.started(gate.id)));
    for (let i = 0; i < 5; i += 1) await open('grow');
    await Promise.all(gates.map((gate) => gate.get(TIMEOUT)));

    const cancelled = await cli('control', 'cancel-consumer', 'extra', '--json');
    expect(JSON.parse(cancelled.stdout)).toEqual({ 'w-ctl': { queues: ['default'] } });
    const parked = client.sendTask<number>('e2e.add', [2, 2], { queue: 'extra' });
    await expect(client.sendTask<number>('e2e.add', [1, 1]).get(TIMEOUT)).resolves.toBe(2);
    await expect(client.broker.stats('extra')).resolves.toMatchObject({ ready: 1 });
    await cli('control', 'add-consumer', 'extra');
    await expect(parked.get(TIMEOUT)).resolves.toBe(4);

    await expect(cli('control', 'shutdown', '--worker', 'w-ctl')).resolves.toMatchObject({ code: 0 });
    await expect(w.exited).resolves.toEqual({ code: 0, signal: null });
    await w.waitForLog((line) => line.msg === 'Worker exited cleanly');
  }, 60_000);

  it('pool-grow on a prefork worker starts more children, pool-shrink retires one', async () => {
    const w = await worker('w-prefork', ['--pool', 'prefork']);
    const before = w.children().filter((child) => child.command.includes('node')).length;
    await expect(cli('control', 'pool-grow', '1', '--worker', 'w-prefork', '--timeout', '20s')).resolves.toMatchObject({
      code: 0,
      stdout: 'w-prefork: {"concurrency":3}\n',
    });
    expect(w.children().filter((child) => child.command.includes('node')).length).toBe(before + 1);
    await expect(cli('control', 'pool-shrink', '2', '--worker', 'w-prefork')).resolves.toMatchObject({
      code: 0,
      stdout: 'w-prefork: {"concurrency":1}\n',
    });
    await w.waitForLog(
      (line) => /the pool shrank/.test(line.msg) && w.lines.filter((l) => /the pool shrank/.test(l.msg)).length === 2,
      'two children retired',
    );
  }, 60_000);

  it('call --wait prints the result, result reads it back, revoke records REVOKED; --json parses', async () => {
    await worker('w-call');
    const called = await cli('call', 'e2e.add', '--args', '[2, 3]', '--wait', '--json', '--timeout', '10s');
    expect(called.code).toBe(0);
    const record = JSON.parse(called.stdout) as { id: string; state: string; result: number };
    expect(record).toMatchObject({ state: 'SUCCESS', result: 5, task: 'e2e.add' });
    const shown = await cli('result', record.id);
    expect(shown.stdout).toContain(`${record.id}  SUCCESS\ntask: e2e.add\nresult: 5`);
    await expect(cli('call', 'e2e.add', '--args', '{"a":1}')).resolves.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--args must be a JSON array'),
    });

    const client = e2e().fixture.app();
    // A BigInt result is shown as the task returned it, and as plain JSON data with --json.
    const big = client.sendTask<bigint>('e2e.add', [1n, 2n]);
    await expect(big.get(TIMEOUT)).resolves.toBe(3n);
    await expect(cli('result', big.id)).resolves.toMatchObject({ stdout: expect.stringContaining('result: 3n') });
    const bigJson = await cli('result', big.id, '--json');
    expect(JSON.parse(bigJson.stdout)).toMatchObject({ state: 'SUCCESS', result: 3 });
    await client.queues.pause('default');
    const waiting = client.sendTask('e2e.add', [1, 1]);
    await waiting.sent;
    await expect(cli('revoke', waiting.id)).resolves.toMatchObject({ code: 0 });
    await expect(cli('result', waiting.id, '--json')).resolves.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('"REVOKED"'),
    });
    await expect(cli('queue', 'purge', 'default')).resolves.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--yes'),
    });
  });

  it('no worker answering, and an unreachable broker, exit non-zero with a clear message', async () => {
    const none = await cli('inspect', 'active', '--timeout', '200ms');
    expect(none).toMatchObject({ code: 1, stderr: expect.stringContaining('No worker answered within 200 ms') });
    expect(none.stderr).toContain('CELERIAC_NO_REPLY');
    const down = await runCli(['control', 'ping', '-A', FIXTURE_APP], e2e().fixture.prefix, {
      REDIS_URL: 'redis://127.0.0.1:1/0',
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/unreachable.*CELERIAC_BROKER_UNAVAILABLE/s);
    const status = await runCli(['status', '-A', FIXTURE_APP], e2e().fixture.prefix, {
      REDIS_URL: 'redis://127.0.0.1:1/0',
    });
    expect(status).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/Could not list the queues: Redis at redis:\/\/127\.0\.0\.1:1\/0 is unreachable/),
    });
  });
});
