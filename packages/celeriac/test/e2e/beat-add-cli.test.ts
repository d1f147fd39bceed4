import { RedisFixture } from '@celeriac/test-support';
import { BEAT_APP, runCli } from './support/beat-cli';

describe('celeriac beat add: the task must exist', () => {
  const fixture = new RedisFixture('e2e-beat-add');
  afterAll(() => fixture.cleanup());

  const cli = (...args: string[]) => runCli(['beat', ...args, '-A', BEAT_APP], fixture.prefix, { BEAT_TICK: 'off' });
  const runtimeEntries = async () =>
    (JSON.parse((await cli('list', '--json')).stdout) as { entries: Array<{ name: string }> }).entries.map(
      (entry) => entry.name,
    );

  it('refuses a task the app does not register (exit 1, code CELERIAC_UNKNOWN_TASK) and stores nothing', async () => {
    const run = await cli('add', 'typo', '--task', 'nope.unknown', '--every', '1m');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('registers no task named "nope.unknown" (it registers: e2e.tick)');
    expect(run.stderr).toContain('--force');
    expect(run.stderr).toContain('CELERIAC_UNKNOWN_TASK');
    expect(await runtimeEntries()).toEqual([]);
  });

  it('adds it with --force, for a task only the workers register', async () => {
    await expect(cli('add', 'remote', '--task', 'reports.elsewhere', '--every', '1m', '--force')).resolves.toEqual({
      code: 0,
      stdout: 'Added remote\n',
      stderr: '',
    });
    expect(await runtimeEntries()).toEqual(['remote']);
  });
});
