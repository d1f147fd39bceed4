/**
 * A worker holding tasks for a slot (reserved) apart from the one it runs (active), as the
 * dashboard (its API, and the overview page in a browser) and the metrics (the worker's endpoint,
 * and the app-level handler the dashboard mounts) report them.
 */
import { createDashboard, metricsHandler, type Dashboard } from 'celeriac';
import { launchBrowser, untilTrue, type TestBrowser } from '@celeriac/test-support';
import type { Page } from 'playwright-core';
import { parseSamples, sampleValue, type Sample } from './support/prometheus-text';
import { useE2e } from './support/worker-process';

/** Tasks sent: one runs, PREFETCH wait in the worker for its one slot, the last waits in the queue. */
const PREFETCH = 3;
const SENT = PREFETCH + 2;

interface WorkerView {
  hostname: string;
  active?: number;
  busy?: number;
}

interface Overview {
  workers: WorkerView[];
  queues: Array<{ name: string; ready: number; delayed: number; active: number }>;
}

async function scrape(url: string | URL): Promise<Sample[]> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return parseSamples(await response.text());
}

async function waitForText(page: Page, selector: string, expected: string): Promise<void> {
  await page.waitForSelector(`${selector}:text-is(${JSON.stringify(expected)})`);
}

describe('reserved apart from running', () => {
  let dashboard: Dashboard | undefined;
  let browser: TestBrowser | undefined;
  // Declared before useE2e, so it runs first: the dashboard stops before its app is closed.
  afterEach(async () => {
    await browser?.close();
    await dashboard?.close();
  });
  const e2e = useE2e('e2e-reserved');

  it('a worker at concurrency 1 with prefetch 3: the dashboard and the metrics say 1 running, 3 reserved', async () => {
    const { fixture, workers } = e2e();
    // Inline pool: nothing queued in a pool child, so the worker holds exactly 1 + PREFETCH.
    const slots = ['--pool', 'inline', '-c', '1', '--prefetch', String(PREFETCH)];
    const worker = workers.start(['--hostname', 'w-held', ...slots, '--metrics-port', '0']);
    const workerMetrics = (await worker.ready()).metrics as string;
    const app = fixture.app({ events: true });
    const open = (name: string) => fixture.redis().lpush(`${fixture.prefix}:marks:${name}`, 'open');
    const gates = Array.from({ length: SENT }, (_, i) => app.sendTask<number>('e2e.gate', [i, `held-${i}`]));
    await Promise.all(gates.map((gate) => gate.sent));
    await worker.started(gates[0]?.id as string);

    // The worker's own endpoint reads its slots as it is scraped: it settles once the fetch loop filled up.
    let samples: Sample[] = [];
    await untilTrue(async () => {
      samples = await scrape(workerMetrics);
      return sampleValue(samples, 'celeriac_worker_held_tasks') === 1 + PREFETCH;
    }, 'the worker holding 1 + prefetch tasks');
    expect(sampleValue(samples, 'celeriac_worker_concurrency')).toBe(1);
    expect(sampleValue(samples, 'celeriac_worker_busy_slots')).toBe(1);
    expect(sampleValue(samples, 'celeriac_worker_reserved_tasks')).toBe(PREFETCH);
    expect(sampleValue(samples, 'celeriac_queue_tasks', { queue: 'default', state: 'ready' })).toBe(1);
    // Leased counts every held task, running or not: the queue's own view cannot tell them apart.
    expect(sampleValue(samples, 'celeriac_queue_tasks', { queue: 'default', state: 'active' })).toBe(1 + PREFETCH);

    dashboard = createDashboard(app, { metrics: metricsHandler(app), sampleEvery: 60_000 });
    const { url } = await dashboard.listen({ port: 0 });
    const overview = async () => (await (await fetch(new URL('api/overview', url))).json()) as Overview;
    // The dashboard reads the worker's heartbeat record, renewed every 5 s: wait for one since it filled up.
    let seen: Overview | undefined;
    await untilTrue(async () => {
      seen = await overview();
      return seen.workers[0]?.active === 1 + PREFETCH;
    }, 'a heartbeat of the worker holding 1 + prefetch tasks');
    expect(seen?.workers).toEqual([expect.objectContaining({ hostname: 'w-held', busy: 1, active: 1 + PREFETCH })]);
    expect(seen?.queues).toEqual([expect.objectContaining({ name: 'default', ready: 1, delayed: 0 })]);

    // The dashboard's /metrics: the app-level gauges, from the same heartbeat record.
    const fleet = await scrape(new URL('metrics', url));
    expect(sampleValue(fleet, 'celeriac_workers_busy_slots')).toBe(1);
    expect(sampleValue(fleet, 'celeriac_workers_held_tasks')).toBe(1 + PREFETCH);
    expect(sampleValue(fleet, 'celeriac_workers_reserved_tasks')).toBe(PREFETCH);

    // The overview page: Running and Reserved columns, and "waiting" counting the reserved with the ready one.
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    await page.goto(url);
    const row = '[data-test=worker-row][data-hostname=w-held]';
    await waitForText(page, `${row} [data-test=running]`, '1');
    await waitForText(page, `${row} [data-test=reserved]`, String(PREFETCH));
    await waitForText(page, '[data-test=waiting]', String(PREFETCH + 1));

    for (let i = 0; i < SENT; i += 1) await open(`held-${i}`);
    await expect(Promise.all(gates.map((gate) => gate.get({ timeout: 15_000 })))).resolves.toEqual([0, 1, 2, 3, 4]);
  }, 60_000);
});
