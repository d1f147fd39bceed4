/**
 * What `celeriac events` tells a reader: that the app's events are off (and how to turn them on)
 * rather than a silent wait, and a reader that stops early (`| head -2`) ends it quietly.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { BEAT_APP, runCli } from './support/beat-cli';
import { FIXTURE_APP, useE2e } from './support/worker-process';

const CLI = join(resolve(__dirname, '../../../..'), 'packages/celeriac/dist/cli/main.js');

describe('celeriac events: what it says', () => {
  const e2e = useE2e('e2e-events-cli');

  it('with the app’s events off, says so on stderr and how to turn them on', async () => {
    const run = await runCli(['events', '-A', BEAT_APP, '--no-follow'], e2e().fixture.prefix, { BEAT_TICK: 'off' });
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr).toContain(`Events are off for this app (\`events: true\` is not set in ${BEAT_APP})`);
    expect(run.stderr).toContain('celeriac worker -E');
    expect(run.stderr).toContain(`celeriac control enable-events -A ${BEAT_APP}`);
    // An app with events on hears nothing of it.
    const on = await runCli(['events', '-A', FIXTURE_APP, '--no-follow'], e2e().fixture.prefix);
    expect(on).toMatchObject({ code: 0, stderr: '' });
  });

  it('shows arguments as they were passed, in lines and in --json, not in the wire form', async () => {
    const sender = e2e().fixture.app({ events: { payloads: true } });
    const sent = sender.sendTask('e2e.add', [new Map([['k', 1n]]), new Date(0)]);
    await sent.sent;
    const lines = await runCli(['events', '-A', FIXTURE_APP, '--since', '1h', '--no-follow'], e2e().fixture.prefix);
    expect(lines.stdout).toContain(
      `e2e.add[${sent.id}] queue=default args=[ Map(1) { 'k' => 1n }, 1970-01-01T00:00:00.000Z ]`,
    );
    const json = await runCli(
      ['events', '-A', FIXTURE_APP, '--since', '1h', '--no-follow', '--json'],
      e2e().fixture.prefix,
    );
    const [event] = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; args: unknown });
    expect(event).toMatchObject({ type: 'task-sent', args: [{ k: 1 }, '1970-01-01T00:00:00.000Z'] });
  });

  it('a reader that closes the pipe early (| head -2) ends it quietly: exit 0, no EPIPE stack', async () => {
    const { fixture } = e2e();
    const sender = fixture.app({ events: true });
    // More lines than a pipe holds (64 KiB), so the command is still writing when the reader goes.
    const sent = Array.from({ length: 1_500 }, (_, i) => sender.sendTask('e2e.add', [i, i]));
    await Promise.all(sent.map((result) => result.sent));
    const child = spawn(
      process.execPath,
      [CLI, 'events', '-A', FIXTURE_APP, '--json', '--since', '1h', '--no-follow'],
      {
        env: { ...process.env, CELERIAC_TEST_PREFIX: fixture.prefix },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Like head: read the first lines, then close the read end.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((done) => child.once('close', done));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 30_000);
});
