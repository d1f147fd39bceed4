/** `celeriac call` with a name the app does not register: a warning naming the closest ones, unless --force. */
import { runCli } from './support/beat-cli';
import { FIXTURE_APP, useE2e } from './support/worker-process';

describe('celeriac call: a misspelt task name', () => {
  const e2e = useE2e('e2e-call-unknown');
  const call = (...args: string[]) => runCli(['call', ...args, '-A', FIXTURE_APP], e2e().fixture.prefix);

  it('warns on stderr with the registered names, the closest first, and still sends it', async () => {
    const run = await call('e2e.ad', '--args', '[1, 2]');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(run.stderr).toMatch(
      new RegExp(`^warning: The app in ${FIXTURE_APP} registers no task named "e2e\\.ad" \\(it registers: e2e\\.add, `),
    );
    expect(run.stderr).toContain("pass --force when only the workers' app registers it");
    await expect(e2e().fixture.app().broker.stats('default')).resolves.toMatchObject({ ready: 1 });
  });

  it('says nothing with --force, nor for a registered name', async () => {
    await expect(call('e2e.ad', '--force')).resolves.toMatchObject({ code: 0, stderr: '' });
    await expect(call('e2e.add', '--args', '[1, 2]')).resolves.toMatchObject({ code: 0, stderr: '' });
  });
});
