/**
 * `celeriac beat` end to end: real scheduler processes on one Redis. One leads and fires each slot
 * once; a standby takes over after a kill -9 without firing a slot twice or missing one; runtime
 * entries are added, listed and removed with the CLI while a scheduler runs.
 */
import { BEAT_APP, firedLines, killLeader, runCli, slotOf, untilFired } from './support/beat-cli';
import { useE2e } from './support/worker-process';

const LEASE = ['--lease', '2s'];

describe('celeriac beat', () => {
  const context = useE2e('e2e-beat');

  it('two schedulers: the leader fires each slot once; after kill -9 the standby fires on; none twice', async () => {
    const { fixture, workers } = context();
    const first = workers.spawn('beat', ['-A', BEAT_APP, ...LEASE, '--id', 'beat-a']);
    const firstReady = await first.ready();
    const second = workers.spawn('beat', ['-A', BEAT_APP, ...LEASE, '--id', 'beat-b']);
    const secondReady = await second.ready();
    expect([firstReady.state, secondReady.state]).toEqual(['leading', 'standby']);

    await untilFired(first, 10); // ten seconds, one slot a second
    expect(firedLines(second)).toEqual([]);
    await killLeader(first, second, 2_000);
    second.signal('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    const logged = [...firedLines(first), ...firedLines(second)].map((line) => String(line.id));
    expect(new Set(logged).size).toBe(logged.length);
    const queued = await fixture.redis().zrange(`${fixture.prefix}:{${fixture.prefix}:default}:ready`, 0, -1);
    const slots = queued.map(slotOf).sort((a, b) => a - b);
    expect(slots.length).toBeGreaterThanOrEqual(13);
    expect(slots.slice(1).map((slot, index) => slot - slots[index]!)).toEqual(slots.slice(1).map(() => 1_000));
    // Every logged firing is in the queue; at most the one in flight at the kill went unlogged.
    expect(logged.filter((id) => !queued.includes(id))).toEqual([]);
    expect(queued.length - logged.length).toBeLessThanOrEqual(1);
    // How late each firing comes depends on the machine's load (a firing came 1.4 s late with both
    // cores busy), so it is not asserted; what is asserted above holds under any load: every slot
    // fired, none twice.
  });

  it('adds, lists and removes a runtime entry with the CLI while a scheduler runs', async () => {
    const { fixture, workers } = context();
    const noTick = { BEAT_TICK: 'off' }; // only runtime entries
    const beat = workers.spawn('beat', ['-A', BEAT_APP, ...LEASE], noTick);
    await beat.ready();
    const cli = (...args: string[]) => runCli(['beat', ...args, '-A', BEAT_APP], fixture.prefix, noTick);

    expect(
      await cli('add', 'poll', '--task', 'e2e.tick', '--every', '1s', '--args', '[7]', '--queue', 'polls'),
    ).toEqual({ code: 0, stdout: 'Added poll\n', stderr: '' });
    await untilFired(beat, 1, 'poll');
    const listed = await cli('list', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      leader: { owner: expect.any(String), ttl: expect.any(Number) },
      entries: [
        {
          name: 'poll',
          task: 'e2e.tick',
          source: 'runtime',
          description: 'every 1s',
          args: [7],
          options: { queue: 'polls' },
          catchUp: 'once',
        },
      ],
    });
    const bad = await cli('add', 'bad', '--task', 'e2e.tick', '--cron', '61 * * * *');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Schedule entry "bad": Invalid cron expression "61 * * * *"');

    expect(await cli('remove', 'poll')).toMatchObject({ code: 0, stdout: 'Removed poll\n' });
    await beat.waitForLog((line) => line.msg === 'Entries changed: 0 entries now', 'the removal');
    const firedBefore = firedLines(beat, 'poll').length;
    expect(await cli('remove', 'poll')).toMatchObject({ code: 1, stderr: 'No runtime entry named poll\n' });
    expect((JSON.parse((await cli('list', '--json')).stdout) as { entries: unknown[] }).entries).toEqual([]);
    expect(firedLines(beat, 'poll')).toHaveLength(firedBefore);
    expect(await fixture.redis().zcard(`${fixture.prefix}:{${fixture.prefix}:polls}:ready`)).toBe(firedBefore);
  });
});
