import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { alive, childrenOf, gone } from '@celeriac/test-support';
import { FIXTURE_APP, useE2e } from './support/worker-process';

const ROOT = resolve(__dirname, '../../../..');
const PACKAGE = join(ROOT, 'packages/celeriac');

describe('npx celeriac, as the README and docs/cli.md run it', () => {
  const e2e = useE2e('e2e-npx');

  it('links a committed bin file, so `npm ci` links it before the build; without the build it says to run it', () => {
    const { bin, version } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
      bin: { celeriac: string };
      version: string;
    };
    // `npm ci` skips a bin whose file is missing, and dist/ exists only after `npm run build`.
    expect(bin.celeriac).toBe('bin/celeriac.js');
    expect(execFileSync('git', ['ls-files', bin.celeriac], { cwd: PACKAGE, encoding: 'utf8' }).trim()).toBe(
      bin.celeriac,
    );
    expect(
      execFileSync('npx', ['celeriac', '--version'], {
        cwd: ROOT,
        env: { ...process.env, npm_config_yes: 'false' },
        encoding: 'utf8',
      }).trim(),
    ).toBe(version);

    const unbuilt = mkdtempSync(join(tmpdir(), 'celeriac-unbuilt-'));
    try {
      mkdirSync(join(unbuilt, 'bin'));
      copyFileSync(join(PACKAGE, bin.celeriac), join(unbuilt, bin.celeriac));
      expect(existsSync(join(unbuilt, 'dist'))).toBe(false);
      const run = (() => {
        try {
          execFileSync(process.execPath, [join(unbuilt, bin.celeriac), '--version'], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          return { status: 0, stderr: '' };
        } catch (error) {
          return error as { status: number; stderr: string };
        }
      })();
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('Run `npm run build`');
    } finally {
      rmSync(unbuilt, { recursive: true, force: true });
    }
  });

  it('SIGTERM to npx drains the worker: the running task finishes, a waiting one stays queued, none left', async () => {
    const { fixture, workers } = e2e();
    const npx = workers.spawn(
      'worker',
      ['-A', FIXTURE_APP, '-c', '1', '--prefetch', '0', '--pool', 'prefork'],
      {},
      'npx',
    );
    const outputClosed = new Promise((resolveClosed) => npx.child.stdout!.once('close', resolveClosed));
    // Read apart from npx.waitForLog, which gives up once npx (the child) has exited.
    const noticed = new Promise<void>((resolveNoticed) =>
      createInterface({ input: npx.child.stdout! }).on(
        'line',
        (text) => text.includes('npm, which started this process, has exited') && resolveNoticed(),
      ),
    );
    const ready = await npx.ready();
    const worker = ready.pid as number;
    expect(worker).not.toBe(npx.child.pid); // npx runs the worker in a process of its own (through sh)
    const client = fixture.app();
    const running = client.sendTask<string>('e2e.gate', ['done', 'npx'], { taskId: 'npx-running' });
    const waiting = client.sendTask<number>('e2e.add', [1, 2]);
    await npx.started(running.id);
    const pool = childrenOf(worker).map((child) => child.pid);
    expect(pool.length).toBeGreaterThan(0);

    npx.signal('SIGTERM');
    await npx.exited;
    // npx does not pass the signal on; the worker notices that npm is gone and drains as on SIGTERM.
    // (Without that it would run on under PID 1: `gone` kills it after 15 s and fails the test.)
    await Promise.race([
      noticed,
      gone(worker, 15_000).then(() => Promise.reject(new Error('the worker ended without noticing that npm exited'))),
    ]);
    await fixture.redis().lpush(`${fixture.prefix}:marks:npx`, 'open'); // the running task may finish now
    await gone(worker, 15_000);
    for (const pid of pool) await gone(pid, 5_000);
    await outputClosed;
    expect(npx.lines.map((line) => line.msg)).toContain('Worker exited cleanly');
    expect([worker, ...pool].filter(alive)).toEqual([]);
    await expect(running.state()).resolves.toBe('SUCCESS');
    await expect(waiting.state()).resolves.toBe('PENDING');
    await expect(client.broker.stats('default')).resolves.toMatchObject({ ready: 1, active: 0 });
  });
});
