// Regenerates the dashboard screenshots in docs/images/: starts a `celeriac worker` on a fresh key
// prefix, runs a few tasks (one fails), adds a beat entry, serves the dashboard and photographs its
// pages in headless Chromium. Needs Redis (REDIS_URL) and Debian's chromium (CHROMIUM_PATH).
//
// Usage: npm run screenshots   (builds first; deletes its keys at the end)
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chain, chord, createDashboard, every } from 'celeriac';
import { launchBrowser, RedisFixture } from '@celeriac/test-support';

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'packages/celeriac/dist/cli/main.js');
const APP = join(ROOT, 'packages/celeriac/test/e2e/fixtures/dashboard-app.js');
const OUT = join(ROOT, 'docs/images');

async function main(): Promise<void> {
  const fixture = new RedisFixture('screenshots');
  const worker = spawn(process.execPath, [CLI, 'worker', '-A', APP, '-Q', 'default,reports', '--json-logs'], {
    env: { ...process.env, CELERIAC_TEST_PREFIX: fixture.prefix },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ready, failed) => {
    createInterface({ input: worker.stdout }).on('line', (line) => {
      if (line.includes(' ready"')) ready();
    });
    worker.once('exit', (code) => failed(new Error(`The worker exited (code ${code}) before it was ready.`)));
  });
  const app = fixture.app({ events: { payloads: true } });
  const dashboard = createDashboard(app, { title: 'Celeriac (example)' });
  const browser = await launchBrowser({ width: 1280, height: 800 });
  try {
    for (let n = 1; n <= 12; n += 1) await app.sendTask('demo.add', [n, n * 10]);
    await app.sendTask('orders.ship', ['A-1001']).catch(() => undefined);
    await app.sendTask('reports.build', ['weekly'], { queue: 'reports' });
    await app.beat.add('hourly-report', { task: 'reports.build', schedule: every('1h'), args: ['hourly'] });
    const step = (args: number[], task = 'demo.add') => app.signature({ task, args, options: {}, immutable: false });
    const members = [10, 20, 30].map((n) => step([n]));
    const chained = chain(step([1, 2]), step([3]), chord(members, step([], 'demo.sum')), step([100])).applyAsync();
    await chained;

    const { url } = await dashboard.listen({ port: 0 });
    const page = await browser.context.newPage();
    mkdirSync(OUT, { recursive: true });
    const shoot = async (hash: string, ready: string, name: string) => {
      await page.goto(`${url}${hash}`);
      await page.waitForSelector(ready);
      await page.screenshot({ path: join(OUT, `dashboard-${name}.png`), fullPage: true });
      console.log(join('docs/images', `dashboard-${name}.png`));
    };
    await shoot('#/', '[data-test=worker-row]', 'overview');
    await shoot('#/tasks', '[data-test=task-row]', 'tasks');
    const failed = await app.failed.list({ limit: 1 });
    await shoot(`#/tasks/${failed[0]?.id ?? ''}`, '[data-test=task-traceback]', 'task');
    await shoot('#/failed', '[data-test=failed-row]', 'failed');
    await shoot(`#/tasks/${chained.parent?.id ?? ''}`, '[data-test=workflow-node] >> nth=6', 'workflow');
    await shoot('#/beat', '[data-test=beat] tr', 'beat');
  } finally {
    await browser.close();
    await dashboard.close();
    worker.kill('SIGTERM');
    await new Promise((exited) => worker.once('exit', exited));
    await fixture.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
