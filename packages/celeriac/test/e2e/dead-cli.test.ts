import { runCli } from './support/beat-cli';
import { FIXTURE_APP, useE2e } from './support/worker-process';

describe('celeriac dead list | requeue | discard', () => {
  const e2e = useE2e('e2e-dead');

  /** Sends tasks no worker will run and dead-letters them through the broker, as a worker would. */
  async function deadLetters(count: number): Promise<string[]> {
    const app = e2e().fixture.app();
    const results = Array.from({ length: count }, (_, i) => app.sendTask('e2e.retired', [i]));
    await Promise.all(results.map((result) => result.sent));
    for (const delivery of await app.broker.reserve(['default'], count))
      await app.broker.deadLetter(delivery, `unknown task e2e.retired`);
    return results.map((result) => result.id);
  }

  it('lists dead letters with task and reason, requeues chosen ones, and discards the rest with --all', async () => {
    const { fixture } = e2e();
    const [first, second, third] = await deadLetters(3);
    const cli = (...args: string[]) => runCli(['dead', ...args, '-A', FIXTURE_APP], fixture.prefix);

    const listed = await cli('list', '--json');
    expect(listed.code).toBe(0);
    // Oldest first; these three died in the same millisecond, so their order among them is Redis's.
    const byId = (rows: Array<{ id: string }>) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(JSON.parse(listed.stdout) as Array<{ id: string }>)).toEqual(
      byId([first, second, third].map((id) => ({ id: id as string }))).map(({ id }) =>
        expect.objectContaining({ id, task: 'e2e.retired', reason: 'unknown task e2e.retired' }),
      ),
    );
    const table = await cli('list');
    expect(table.stdout).toMatch(/^ID +TASK +DEAD SINCE +REASON\n/);
    for (const id of [first, second, third])
      expect(table.stdout).toMatch(new RegExp(`\\n${id} +e2e\\.retired +\\S+ +unknown task e2e\\.retired`));

    await expect(cli('requeue', first as string)).resolves.toMatchObject({
      code: 0,
      stdout: 'Requeued 1 dead letter(s) of default.\n',
    });
    const broker = fixture.app().broker;
    await expect(broker.stats('default')).resolves.toMatchObject({ ready: 1, dead: 2 });

    await expect(cli('discard', '--all')).resolves.toMatchObject({
      code: 0,
      stdout: 'Discarded 2 dead letter(s) of default.\n',
    });
    await expect(cli('list')).resolves.toMatchObject({ code: 0, stdout: 'No dead letters in default.\n' });
    await expect(broker.stats('default')).resolves.toMatchObject({ ready: 1, dead: 0 });
  });

  it('refuses to guess: neither ids nor --all (or both) exits 1 and changes nothing; unknown ids exit 1', async () => {
    const { fixture } = e2e();
    const [only] = await deadLetters(1);
    const cli = (...args: string[]) => runCli(['dead', ...args, '-A', FIXTURE_APP], fixture.prefix);
    await expect(cli('discard')).resolves.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Give the ids to discard, or --all'),
    });
    await expect(cli('requeue', '--all', only as string)).resolves.toMatchObject({ code: 1 });
    await expect(cli('discard', 'no-such-id')).resolves.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('1 of the ids given were not dead letters'),
    });
    await expect(fixture.app().broker.stats('default')).resolves.toMatchObject({ ready: 0, dead: 1 });
  });
});
