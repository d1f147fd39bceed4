import { join } from 'node:path';
import { runCli } from './support/beat-cli';
import { useE2e } from './support/worker-process';

const THROWS_ON_LOAD = join(__dirname, 'fixtures/throws-on-load.js');

describe('celeriac worker: what it tells at start', () => {
  const e2e = useE2e('e2e-banner');

  it('logs, when ready, the broker (password hidden), prefix, queues, pool, concurrency and task names', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'prefork', '-Q', 'default,reports'], {
      REDIS_URL: 'redis://:hunter2@127.0.0.1:6379/0',
    });
    const ready = await worker.ready();
    expect(ready).toMatchObject({
      broker: 'redis://:***@127.0.0.1:6379/0',
      prefix: fixture.prefix,
      queues: ['default', 'reports'],
      pool: 'prefork',
      concurrency: 2,
      tasks: expect.arrayContaining(['e2e.add', 'e2e.sleep']),
    });
    expect(JSON.stringify(worker.lines)).not.toContain('hunter2');
  });

  it('refuses a -Q queue name that senders refuse, naming it, and exits 1', async () => {
    const { workers } = e2e();
    const worker = workers.start(['--pool', 'inline', '-Q', 'default,<img>']);
    expect((await worker.exited).code).toBe(1);
    expect(worker.stderr.join('\n')).toContain('Invalid worker option queues: "<img>"');
  });

  it('prints the stack of an error the app module throws while loading, and exits 2', async () => {
    const run = await runCli(['worker', '-A', THROWS_ON_LOAD], 'e2e-banner-unused');
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      `The app module ${THROWS_ON_LOAD} failed to load: settings.json has no "broker" field`,
    );
    // Where it was thrown: the function and line in the module.
    expect(run.stdout).toMatch(new RegExp(`at readSettings \\(${THROWS_ON_LOAD.replace(/[.]/g, '\\.')}:3:`));
  });
});
