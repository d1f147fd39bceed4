/**
 * The dashboard in a real browser (headless Chromium) against a real `celeriac worker` process:
 * the overview shows the worker and the counts, a failed task is opened and retried from its page
 * until it succeeds, a queue paused from the page holds a task until it is resumed there, and a
 * workflow (a chain with a chord) is drawn whole from any of its tasks, its states updated live; a
 * read-only dashboard shows no button; the header says whether the dashboard can read its broker.
 * Every wait is on a condition of the page or of the app, never a fixed sleep.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chain, chord, createDashboard, type Dashboard } from 'celeriac';
import { launchBrowser, type TestBrowser } from '@celeriac/test-support';
import type { Page, Response } from 'playwright-core';
import { useE2e } from './support/worker-process';

const APP = join(__dirname, 'fixtures/dashboard-app.js');

/** Waits until an element matching `selector` reads exactly `expected`. */
async function waitForText(page: Page, selector: string, expected: string): Promise<void> {
  await page.waitForSelector(`${selector}:text-is(${JSON.stringify(expected)})`);
}

describe('the dashboard in a browser', () => {
  let browser: TestBrowser | undefined;
  let dashboard: Dashboard | undefined;
  let readOnly: Dashboard | undefined;
  let gateDir: string | undefined;

  // Declared before useE2e, so it runs first: the dashboard stops before its app is closed.
  afterEach(async () => {
    await browser?.close();
    await dashboard?.close();
    await readOnly?.close();
    if (gateDir) rmSync(gateDir, { recursive: true, force: true });
  });
  const e2e = useE2e('e2e-dashboard');

  it('shows the worker and counts, retries a failed task to success, and pauses a queue', async () => {
    const { fixture, workers } = e2e();
    gateDir = mkdtempSync(join(tmpdir(), 'celeriac-dashboard-'));
    const gate = join(gateDir, 'courier-ready');
    const worker = workers.spawn('worker', ['-A', APP, '-Q', 'default,reports', '-c', '2'], { DASHBOARD_GATE: gate });
    await worker.ready();
    const app = fixture.app({ events: { payloads: true } });

    // Two successes and one failure (orders.ship fails until the gate file exists).
    await expect(app.sendTask('demo.add', [2, 3])).resolves.toBe(5);
    await expect(app.sendTask('demo.add', [40, 2])).resolves.toBe(42);
    const shipping = app.sendTask('orders.ship', ['A-1001']);
    await expect(shipping).rejects.toThrow(/no courier for A-1001/);
    await expect(app.sendTask('reports.build', ['weekly'], { queue: 'reports' })).resolves.toBe('built weekly');

    dashboard = createDashboard(app);
    const { url } = await dashboard.listen({ port: 0 });
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    const transferred: number[] = [];
    page.on('response', (response: Response) => {
      const length = Number(response.headers()['content-length']);
      if (Number.isFinite(length)) transferred.push(length);
    });

    // Overview: the worker (by its pid) and the counts of the last hour.
    const opened = Date.now();
    await page.goto(url);
    await page.waitForSelector(`[data-test=worker-row]:has-text("${worker.child.pid}")`);
    const firstRender = Date.now() - opened;
    await waitForText(page, '[data-test=succeeded-hour]', '3');
    await waitForText(page, '[data-test=failed-hour]', '1');
    // Idle: nothing running, nothing reserved for a slot, nothing waiting (from its heartbeat record).
    await waitForText(page, `[data-test=worker-row]:has-text("${worker.child.pid}") [data-test=running]`, '0');
    await waitForText(page, `[data-test=worker-row]:has-text("${worker.child.pid}") [data-test=reserved]`, '0');
    await waitForText(page, '[data-test=waiting]', '0');
    await page.waitForSelector('[data-test=queue-row][data-queue=reports]');
    reportFigures({ firstRenderMs: firstRender, overviewBytes: transferred.reduce((sum, n) => sum + n, 0) });

    // The failed task: listed under Failed, opened, its traceback shown, retried to success.
    await page.click('nav >> text=Failed');
    await page.click(`[data-test=failed-row][data-id="${shipping.id}"] a`);
    await waitForText(page, '[data-test=task-page] h2 [data-test=state]', 'FAILURE');
    await expect(page.textContent('[data-test=task-traceback]')).resolves.toContain('no courier for A-1001');
    await expect(page.textContent('[data-test=task-args]')).resolves.toContain('A-1001');
    writeFileSync(gate, '');
    await page.click('[data-test=retry]');
    await waitForText(page, '[data-test=task-page] h2 [data-test=state]', 'SUCCESS');
    await expect(page.textContent('[data-test=task-result]')).resolves.toContain('A-1001');
    await expect(app.result(shipping.id).get({ timeout: 5_000 })).resolves.toEqual({ shipped: 'A-1001' });
    await expect(app.failed.show(shipping.id)).resolves.toBeUndefined();

    // Pause reports from the page: a task sent there waits (ready 1) until it is resumed from the page.
    await page.click('nav >> text=Overview');
    const reports = '[data-test=queue-row][data-queue=reports]';
    await page.click(`${reports} [data-test=pause]`);
    await waitForText(page, `${reports} [data-test=paused]`, 'paused');
    await expect(app.queues.isPaused('reports')).resolves.toBe(true);
    const held = app.sendTask('reports.build', ['held'], { queue: 'reports' });
    await held.sent;
    await waitForText(page, `${reports} [data-test=ready]`, '1');
    await expect(held.state()).resolves.toBe('PENDING');
    await page.click(`${reports} [data-test=resume]`);
    await expect(held.get({ timeout: 10_000 })).resolves.toBe('built held');
    await waitForText(page, `${reports} [data-test=ready]`, '0');
    await waitForText(page, `${reports} [data-test=paused]`, 'no');

    // A workflow, chain(add, add, chord([add, add], sum), reports.build), with reports paused: from
    // its first step's page the whole graph shows, five steps done and the last waiting; a click on
    // a group member opens its page, with the same graph; once reports resumes, the last step turns
    // SUCCESS there, live, and a click opens it.
    await app.queues.pause('reports');
    const step = (task: string, args: unknown[], options = {}) =>
      app.signature({ task, args, options, immutable: false });
    const first = `wf-first-${process.pid}`;
    const workflow = chain(
      step('demo.add', [1, 2], { taskId: first }),
      step('demo.add', [3]),
      chord([step('demo.add', [10]), step('demo.add', [20])], step('demo.sum', [])),
      step('reports.build', [], { queue: 'reports' }),
    ).applyAsync();
    await expect(app.result(workflow.parent?.id as string).get({ timeout: 10_000 })).resolves.toBe(42);
    const last = workflow.id;
    const graphNode = (id: string) => `[data-test=workflow] [data-test=workflow-node][data-id="${id}"]`;
    const nodes = '[data-test=workflow] [data-test=workflow-node]';
    await page.goto(`${url}#/tasks/${first}`);
    await page.waitForSelector(`${graphNode(last)}[data-state=PENDING]`);
    await page.waitForSelector(`${nodes}[data-state=SUCCESS] >> nth=4`);
    await expect(page.locator(`${nodes}[data-state=SUCCESS]`).count()).resolves.toBe(5);
    await expect(page.locator(nodes).count()).resolves.toBe(6);
    const member = await page.getAttribute(`${nodes}[data-id$=":1"]`, 'data-id');
    await page.click(graphNode(member as string));
    await waitForText(page, '[data-test=task-page] h2 .mono', member as string);
    await page.waitForSelector(`${graphNode(member as string)}.current`);
    await expect(page.locator(nodes).count()).resolves.toBe(6);
    await app.queues.resume('reports');
    await expect(workflow.get({ timeout: 10_000 })).resolves.toBe('built 42');
    await page.waitForSelector(`${graphNode(last)}[data-state=SUCCESS]`);
    await page.click(graphNode(last));
    await waitForText(page, '[data-test=task-page] h2 .mono', last);
    await waitForText(page, '[data-test=task-page] h2 [data-test=state]', 'SUCCESS');

    // Read-only: the same queues, and not one button that would change them.
    readOnly = createDashboard(app, { readOnly: true });
    const { url: readOnlyUrl } = await readOnly.listen({ port: 0 });
    await page.goto(readOnlyUrl);
    await page.waitForSelector(`${reports} [data-test=paused]:text-is("no")`);
    await page.waitForSelector('header .read-only');
    await expect(page.locator('main button').count()).resolves.toBe(0);
  }, 90_000);

  it('says "live" while it reads its broker, and "disconnected" with the reason while it cannot', async () => {
    const { fixture } = e2e();
    dashboard = createDashboard(fixture.app());
    const { url } = await dashboard.listen({ port: 0 });
    // Nothing listens on port 1: every read fails once its bounded retries are spent.
    readOnly = createDashboard(fixture.app({ broker: 'redis://127.0.0.1:1/0' }), { readOnly: true });
    const { url: unreachableUrl } = await readOnly.listen({ port: 0 });
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    await page.goto(url);
    await waitForText(page, 'header [data-test=live]', 'live');
    await page.goto(unreachableUrl);
    await waitForText(page, 'header [data-test=live]', 'disconnected');
    await expect(page.locator('header [data-test=live]').getAttribute('title')).resolves.toMatch(/ECONNREFUSED/);
  }, 60_000);
});

/** Writes the page's figures to the file DASHBOARD_FIGURES names, for bench/README.md. */
function reportFigures(figures: Record<string, number>): void {
  const file = process.env.DASHBOARD_FIGURES;
  if (file) writeFileSync(file, `${JSON.stringify(figures)}\n`, { flag: 'a' });
}
