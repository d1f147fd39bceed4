/**
 * `celeriac dashboard`: serves the page, its API and `/metrics` (gauges, and counters from the event
 * log) behind the token it was given (from the environment, out of `ps`), stops on SIGTERM with exit
 * code 0, and refuses to listen on a non-loopback address without authentication (exit code 1).
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { alive, gone, readLiveMessages } from '@celeriac/test-support';
import { runCli } from './support/beat-cli';
import { parseSamples, sampleValue } from './support/prometheus-text';
import { useE2e } from './support/worker-process';

const APP = join(__dirname, 'fixtures/dashboard-app.js');
/** Nothing listens on port 1: every read of the live feed waits for a broker that never comes. */
const UNREACHABLE = 'redis://127.0.0.1:1/0';

describe('celeriac dashboard', () => {
  const e2e = useE2e('e2e-dashboard-cli');

  it('serves the dashboard behind its token until SIGTERM', async () => {
    const { workers } = e2e();
    const dashboard = workers.spawn('dashboard', ['-A', APP, '--port', '0', '--read-only'], {
      CELERIAC_DASHBOARD_TOKEN: 'token-from-env',
    });
    const started = await dashboard.waitForLog((line) => line.msg.startsWith('Dashboard at '), 'its address');
    const url = started.url as string;
    expect(started).toMatchObject({ auth: 'token', readOnly: true });
    expect(new URL(url).hostname).toBe('127.0.0.1');

    expect((await fetch(new URL('api/overview', url))).status).toBe(401);
    const page = await fetch(url, { headers: { Authorization: 'Bearer token-from-env' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="celeriac-read-only" content="true"');

    // The deployment's gauges for Prometheus, behind the same token; its app writes events, so the
    // task counters (celeriac_app_*) are counted from them (none yet: no task ran since the start).
    expect((await fetch(new URL('metrics', url))).status).toBe(401);
    const metrics = await fetch(new URL('metrics', url), { headers: { Authorization: 'Bearer token-from-env' } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/^celeriac_workers_online \d+$/m);
    expect(text).toMatch(/^celeriac_events_enabled 1$/m);

    dashboard.signal('SIGTERM');
    await expect(dashboard.exited).resolves.toEqual({ code: 0, signal: null });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops on %s with exit code 0 while its Redis does not answer',
    async (signal) => {
      const { workers } = e2e();
      const dashboard = workers.spawn('dashboard', ['-A', APP, '--port', '0'], { REDIS_URL: UNREACHABLE });
      await dashboard.waitForLog((line) => line.msg.startsWith('Dashboard at '), 'its address');
      dashboard.signal(signal);
      await expect(dashboard.exited).resolves.toEqual({ code: 0, signal: null });
    },
  );

  it('under npx with its Redis down, stops once npx is stopped (npm does not pass SIGTERM on)', async () => {
    const { workers } = e2e();
    const npx = workers.spawn('dashboard', ['-A', APP, '--port', '0'], { REDIS_URL: UNREACHABLE }, 'npx');
    // Read apart from npx.waitForLog, which gives up once npx (the child) has exited.
    const noticed = new Promise<void>((resolveNoticed) =>
      createInterface({ input: npx.child.stdout! }).on(
        'line',
        (text) => text.includes('npm, which started this process, has exited') && resolveNoticed(),
      ),
    );
    const started = await npx.waitForLog((line) => line.msg.startsWith('Dashboard at '), 'its address');
    const dashboard = started.pid as number;
    expect(dashboard).not.toBe(npx.child.pid); // npx runs it in a process of its own (through sh)
    npx.signal('SIGTERM');
    await npx.exited;
    // Without noticing, it would run on under PID 1: `gone` kills it after 15 s and this fails.
    await Promise.race([
      noticed,
      gone(dashboard, 15_000).then(() => Promise.reject(new Error('the dashboard ended without noticing npm exit'))),
    ]);
    await gone(dashboard, 15_000);
    expect(alive(dashboard)).toBe(false);
  });

  it("counts the tasks a worker ran in /metrics, from the app's event log", async () => {
    const { fixture, workers } = e2e();
    const dashboard = workers.spawn('dashboard', ['-A', APP, '--port', '0']);
    const url = (await dashboard.waitForLog((line) => line.msg.startsWith('Dashboard at '), 'its address'))
      .url as string;
    await workers.spawn('worker', ['-A', APP, '-c', '1', '--pool', 'inline']).ready();
    const app = fixture.app();
    let id: string | undefined;
    // Once the live feed is open (its first message), the task goes; its success, pushed, was counted.
    await readLiveMessages(new URL('api/live', url).href, ({ name, data }, all) => {
      if (all.length === 1) id = app.sendTask('demo.add', [2, 3]).id;
      const events = name === 'events' ? (data as { events: Array<{ type: string; taskId?: string }> }).events : [];
      return events.some((event) => event.type === 'task-succeeded' && event.taskId === id);
    });
    const samples = parseSamples(await (await fetch(new URL('metrics', url))).text());
    const labels = { task: 'demo.add', queue: 'default', state: 'SUCCESS' };
    expect(sampleValue(samples, 'celeriac_app_tasks_total', labels)).toBe(1);
    await app.close();
  });

  it('refuses a non-loopback address without authentication', async () => {
    const { fixture } = e2e();
    const run = await runCli(['dashboard', '-A', APP, '--host', '0.0.0.0', '--port', '0'], fixture.prefix);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('without authentication');
    expect(run.stderr).toContain('CELERIAC_INVALID_OPTION');
  });

  it('answers the hosts of --allowed-host besides loopback names, and refuses any other', async () => {
    const { workers } = e2e();
    const dashboard = workers.spawn('dashboard', [
      '-A',
      APP,
      '--port',
      '0',
      '--allowed-host',
      'ops.example.com',
      '--allowed-host',
      '.corp.example',
    ]);
    const url = (await dashboard.waitForLog((line) => line.msg.startsWith('Dashboard at '), 'its address'))
      .url as string;
    for (const [host, status] of [
      ['ops.example.com', 200],
      ['ci.corp.example', 200],
      [`localhost:${new URL(url).port}`, 200],
      [`attacker.example:${new URL(url).port}`, 403],
    ] as const)
      expect([host, await statusFor(url, host)]).toEqual([host, status]);
    dashboard.signal('SIGTERM');
    await expect(dashboard.exited).resolves.toEqual({ code: 0, signal: null });
  });

  it('refuses a --basic-auth password shorter than 8 characters', async () => {
    const { fixture } = e2e();
    const run = await runCli(['dashboard', '-A', APP, '--basic-auth', 'a:b', '--port', '0'], fixture.prefix);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('at least 8 characters');
  });

  it('refuses a port beyond 65535, saying what a port may be', async () => {
    const { fixture } = e2e();
    const run = await runCli(['dashboard', '-A', APP, '--port', '70000'], fixture.prefix);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Expected a port from 0 to 65535');
  });
});

/** The status of `GET /api/overview` sent to `url` with `Host: host` (fetch will not send a foreign Host). */
function statusFor(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(url);
    request({ host: '127.0.0.1', port, path: '/api/overview', headers: { Host: host }, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}
