/** `celeriac inspect stats` prints times, durations and sizes for people; `--json` keeps the raw numbers. */
import { runCli } from './support/beat-cli';
import { FIXTURE_APP, useE2e } from './support/worker-process';

describe('celeriac inspect stats', () => {
  const e2e = useE2e('e2e-inspect-stats');

  it('shows dates with how long ago, uptime, MiB and queue lists; --json stays raw', async () => {
    const { fixture, workers } = e2e();
    await workers.start(['--pool', 'inline', '--hostname', 'w-stats', '-Q', 'default,reports']).ready();
    const cli = (...args: string[]) =>
      runCli(
        ['inspect', 'stats', '--worker', 'w-stats', '--timeout', '5s', ...args, '-A', FIXTURE_APP],
        fixture.prefix,
      );

    const table = await cli();
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^w-stats:\n/);
    expect(table.stdout).toMatch(/\n {2}started: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(\d+ (ms|s) ago\)\n/);
    expect(table.stdout).toMatch(/\n {2}uptime: \d+ (ms|s)\n/);
    expect(table.stdout).toMatch(/\n {2}rss: \d+\.\d MiB(\n|$)/);
    expect(table.stdout).toContain('\n  queues: default, reports\n');
    expect(table.stdout).toContain('\n  pool: inline\n');

    const json = await cli('--json');
    const stats = (JSON.parse(json.stdout) as Record<string, Record<string, unknown>>)['w-stats'];
    expect(stats).toMatchObject({
      started: expect.any(Number),
      uptime: expect.any(Number),
      rss: expect.any(Number),
      queues: ['default', 'reports'],
    });
  }, 30_000);
});
