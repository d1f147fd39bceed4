/**
 * `celeriac worker --autoscale MAX,MIN` on a real prefork worker: a burst grows the pool to MAX (the
 * size in inspect, the heartbeat record, status and the metrics), every task finishes, the pool
 * shrinks back to MIN after the idle period while one task still runs, and that task is not killed.
 * Bad bounds and the inline pool are refused with CELERIAC_INVALID_OPTION.
 */
import { brokerSupports, collectMetrics, createDashboard, type Dashboard, type HeldTask } from 'celeriac';
import { runCli } from './support/beat-cli';
import { parseSamples, sampleValue } from './support/prometheus-text';
import { FIXTURE_APP, useE2e, type LogLine } from './support/worker-process';

const TIMEOUT = { timeout: 20_000 };

describe('celeriac worker --autoscale', () => {
  let dashboard: Dashboard | undefined;
  // Declared before useE2e, so it runs first: the dashboard stops before its app is closed.
  afterEach(async () => {
    await dashboard?.close();
    dashboard = undefined;
  });
  const e2e = useE2e('e2e-autoscale');
  const open = (name: string) => e2e().fixture.redis().lpush(`${e2e().fixture.prefix}:marks:${name}`, 'open');
  const resized = (size: number, how: 'grew' | 'shrank') => (line: LogLine) =>
    line.msg.startsWith(`Pool ${how} to ${size} `);

  it('grows to 4 while a burst waits, runs it all, shrinks to 1 without killing the task still running', async () => {
    const { fixture, workers } = e2e();
    const w = workers.start([
      '--hostname',
      'w-auto',
      '--pool',
      'prefork',
      '--autoscale',
      '4,1',
      '--autoscale-idle',
      '500ms',
      '--metrics-port',
      '0',
    ]);
    const ready = await w.ready();
    expect(ready).toMatchObject({ concurrency: 1, autoscale: { min: 1, max: 4 } });
    const client = fixture.app();

    // One task that runs until the test lets it end, then a burst behind it (each runs until let go,
    // so the pool stays needed while the test looks).
    const held = client.sendTask<string>('e2e.gate', ['held', 'auto'], { taskId: 'held-1' });
    await w.started(held.id);
    const burst = Array.from({ length: 7 }, (_, i) => client.sendTask<number>('e2e.gate', [i, 'burst']));

    const grown = await w.waitForLog(resized(4, 'grew'), 'the pool growing to 4');
    expect(grown).toMatchObject({ concurrency: 4, min: 1, max: 4 });
    const [stats] = await client.control.inspect('stats');
    expect(stats?.value).toMatchObject({ concurrency: 4, autoscale: { min: 1, max: 4 } });
    // The heartbeat record was renewed before the line was logged: status and the dashboard see it now.
    if (!brokerSupports(client.broker, 'workerRecords')) throw new Error('the Redis broker keeps worker records');
    expect(await client.broker.listWorkers()).toEqual([
      expect.objectContaining({ hostname: 'w-auto', concurrency: 4, autoscale: { min: 1, max: 4 } }),
    ]);
    const samples = parseSamples(await collectMetrics(client));
    expect(sampleValue(samples, 'celeriac_workers_concurrency')).toBe(4);
    expect(sampleValue(samples, 'celeriac_workers_concurrency_max')).toBe(4);
    const own = parseSamples(await (await fetch(String(ready.metrics))).text());
    expect(['', '_min', '_max'].map((end) => sampleValue(own, `celeriac_worker_concurrency${end}`))).toEqual([4, 1, 4]);
    // What the dashboard's workers view reads.
    dashboard = createDashboard(client, { sampleEvery: 60_000 });
    const { url } = await dashboard.listen({ port: 0 });
    const overview = (await (await fetch(new URL('api/overview', url))).json()) as { workers: unknown[] };
    expect(overview.workers).toEqual([
      expect.objectContaining({ hostname: 'w-auto', status: 'online', concurrency: 4, autoscale: { min: 1, max: 4 } }),
    ]);
    expect(w.children().filter((child) => child.command.includes('node'))).toHaveLength(4);
    // Four tasks run at once, one in each child (those queued in a child behind one have no childPid yet).
    const [busy] = await client.control.inspect('active');
    const childPids = (busy?.value as HeldTask[]).flatMap((task) => task.childPid ?? []);
    expect(new Set(childPids).size).toBe(4);

    // Every task of the burst finishes.
    for (let i = 0; i < burst.length; i += 1) await open('burst');
    await expect(Promise.all(burst.map((result) => result.get(TIMEOUT)))).resolves.toEqual([0, 1, 2, 3, 4, 5, 6]);

    // Idle slots go; the one running the held task stays.
    const shrunk = await w.waitForLog(resized(1, 'shrank'), 'the pool shrinking to 1');
    expect(shrunk).toMatchObject({ concurrency: 1 });
    const [active] = await client.control.inspect('active');
    const running = active?.value as HeldTask[];
    expect(running).toEqual([expect.objectContaining({ id: held.id, childPid: expect.any(Number) })]);
    const status = await runCli(['status', '-A', FIXTURE_APP], fixture.prefix);
    expect(status.stdout).toMatch(/w-auto\s+\d+\s+prefork\s+1 \(1\.\.4\)/);
    expect(await client.broker.listWorkers()).toEqual([expect.objectContaining({ concurrency: 1 })]);

    await open('auto');
    await expect(held.get(TIMEOUT)).resolves.toBe('held');
    // Its child was never stopped: no child died or was replaced, and the task ran once.
    expect(w.lines.filter((line) => /died|Replacing pool child/.test(line.msg))).toEqual([]);
    expect(w.lines.filter((line) => line.id === held.id && line.state === 'STARTED')).toHaveLength(1);
    expect(w.lines.filter((line) => /^Retired pool child/.test(line.msg))).toHaveLength(3);
    expect(w.lines.map((line) => line.child)).not.toContain(running[0]?.childPid);

    w.signal('SIGTERM');
    await expect(w.exited).resolves.toEqual({ code: 0, signal: null });
  }, 30_000);

  it('--pool fork grows while tasks wait and shrinks back when idle', async () => {
    const { fixture, workers } = e2e();
    const w = workers.start(['--pool', 'fork', '--autoscale', '3,1', '--autoscale-idle', '300ms']);
    await w.ready();
    const client = fixture.app();
    const gates = Array.from({ length: 4 }, (_, i) => client.sendTask<number>('e2e.gate', [i, 'fork']));
    await w.waitForLog(resized(3, 'grew'), 'the pool growing to 3');
    const [stats] = await client.control.inspect('stats');
    expect(stats?.value).toMatchObject({ concurrency: 3, autoscale: { min: 1, max: 3 } });
    for (let i = 0; i < gates.length; i += 1) await open('fork');
    await expect(Promise.all(gates.map((gate) => gate.get(TIMEOUT)))).resolves.toEqual([0, 1, 2, 3]);
    await w.waitForLog(resized(1, 'shrank'), 'the pool shrinking to 1');
    w.signal('SIGTERM');
    await expect(w.exited).resolves.toEqual({ code: 0, signal: null });
  }, 20_000);

  it.each([
    [
      ['--autoscale', '1,4'],
      'Invalid worker option autoscale: "1,4"; expected MAX,MIN with MAX at least MIN (did you mean 4,1?)',
    ],
    [['--autoscale', 'x'], 'Invalid worker option autoscale: "x"; expected MAX,MIN'],
    [['--autoscale', '4,1', '--pool', 'inline'], 'only the prefork and fork pools change their size'],
    [['--autoscale', '4,1', '-c', '2'], 'concurrency 2 and autoscale 4,1 together'],
  ])('%j is refused with CELERIAC_INVALID_OPTION (exit 1)', async (args, message) => {
    const { workers } = e2e();
    const refused = workers.start(args);
    expect(await refused.exited).toEqual({ code: 1, signal: null });
    const said = refused.stderr.join('\n');
    expect(said).toContain(message);
    expect(said).toContain('(CELERIAC_INVALID_OPTION)');
    expect(refused.lines.map((line) => line.msg)).not.toContainEqual(expect.stringMatching(/ ready$/));
  });
});
