/**
 * How `-A` names the app module: as Node resolves it (no extension, a folder with a package.json),
 * loaded with import() (an ES module with top-level await, in the worker and its pool children),
 * before the command as Celery takes it, or from CELERIAC_APP; and what a module not found says.
 */
import { join, relative } from 'node:path';
import { runCli } from './support/beat-cli';
import { FIXTURE_APP, useE2e } from './support/worker-process';

const ROOT = join(__dirname, '../../../..');
/** The CommonJS fixture, named as a user would name `dist/tasks.js`: relative, without `.js`. */
const NO_EXTENSION = relative(ROOT, FIXTURE_APP).replace(/\.js$/, '');
/** A folder whose package.json (type: module) names an ES module with top-level await. */
const ESM_FOLDER = relative(ROOT, join(__dirname, 'fixtures/esm-app'));

describe('celeriac -A: the app module as Node resolves it', () => {
  const e2e = useE2e('e2e-app-module');

  it('loads a module named without its extension, in the worker and its prefork child', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.spawn('worker', ['-A', NO_EXTENSION, '--pool', 'prefork', '-c', '1']);
    await worker.ready();
    await expect(fixture.app().sendTask('e2e.add', [2, 3]).get({ timeout: 20_000 })).resolves.toBe(5);
  }, 40_000);

  it('loads a folder (package.json main) holding an ES module with top-level await, in pool children too', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.spawn('worker', ['-A', ESM_FOLDER, '--pool', 'prefork', '-c', '1']);
    const ready = await worker.ready();
    expect(ready.tasks).toEqual(['e2e.esm.multiply']);
    await expect(fixture.app().sendTask('e2e.esm.multiply', [6, 7]).get({ timeout: 20_000 })).resolves.toBe(42);
  }, 40_000);

  it('takes -A before the command, as Celery does, and from CELERIAC_APP when no -A is given', async () => {
    const { fixture } = e2e();
    const before = await runCli(['-A', ESM_FOLDER, 'queue', 'list', '--json'], fixture.prefix);
    expect(before).toMatchObject({ code: 0, stdout: '[]\n' });
    const fromEnv = await runCli(['queue', 'list', '--json'], fixture.prefix, { CELERIAC_APP: ESM_FOLDER });
    expect(fromEnv).toMatchObject({ code: 0, stdout: '[]\n' });
    // Nested commands get it too; an -A after the command wins over CELERIAC_APP.
    const nested = await runCli(['-A', ESM_FOLDER, 'beat', 'list', '--json'], fixture.prefix);
    expect(nested.code).toBe(0);
    const wins = await runCli(['queue', 'list', '-A', ESM_FOLDER], fixture.prefix, { CELERIAC_APP: './nowhere' });
    expect(wins.code).toBe(0);
  }, 30_000);

  it('a module that is not there: a typed message saying what was looked for, no stack, exit 2', async () => {
    const run = await runCli(['queue', 'list', '-A', './dist'], 'e2e-app-module-unused');
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`The app module ./dist was not found: no file ${join(ROOT, 'dist')}`);
    expect(run.stdout).toContain('(CELERIAC_APP_MODULE)');
    expect(run.stdout + run.stderr).not.toMatch(/Require stack|\n\s+at /);
  });
});
