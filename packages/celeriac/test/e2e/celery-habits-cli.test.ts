/**
 * Celery's habits on the command line: `-l INFO`, `worker -E` (events from one worker of an app that
 * leaves them off), `worker -B` (a scheduler in the worker, with a warning), and `control
 * enable-events | disable-events` switching a live worker's events.
 */
import type { StoredEvent } from 'celeriac';
import { BEAT_APP, runCli, untilFired } from './support/beat-cli';
import { useE2e } from './support/worker-process';

const TIMEOUT = { timeout: 15_000 };

describe("Celery's habits", () => {
  const e2e = useE2e('e2e-habits');
  /** The beat fixture leaves events off; without its tick, it is an app whose events are off. */
  const quiet = { BEAT_TICK: 'off' };

  /** The task events of `id` in the log, by type. */
  async function eventsOf(id: string): Promise<string[]> {
    const events: StoredEvent[] = await e2e().fixture.app().events.recent({ task: id });
    return events.map((event) => event.type);
  }

  it('-l and --loglevel take any case and Celery names: -l WARNING hides info lines, --loglevel INFO not', async () => {
    const { fixture, workers } = e2e();
    const warning = workers.spawn(
      'worker',
      ['-A', BEAT_APP, '--pool', 'inline', '-Q', 'quiet', '-l', 'WARNING'],
      quiet,
    );
    const info = workers.spawn('worker', ['-A', BEAT_APP, '--pool', 'inline', '--loglevel', 'INFO'], quiet);
    await info.ready();
    // The quiet worker ran a task (an info line at INFO), yet logged nothing below warnings.
    await expect(fixture.app().sendTask('e2e.tick', [1], { queue: 'quiet' }).get(TIMEOUT)).resolves.toBe(1);
    warning.signal('SIGTERM');
    expect(await warning.exited).toEqual({ code: 0, signal: null });
    expect(warning.lines.filter((line) => line.level < 40)).toEqual([]);
    const refused = await runCli(['worker', '-A', BEAT_APP, '-l', 'loud'], fixture.prefix);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Expected one of debug, info, warn, error, fatal');
  }, 30_000);

  it('worker -E emits the task events of an app whose events are off', async () => {
    const { fixture, workers } = e2e();
    await workers.spawn('worker', ['-A', BEAT_APP, '--pool', 'inline', '-E'], quiet).ready();
    const sent = fixture.app().sendTask('e2e.tick', [7]);
    await expect(sent.get(TIMEOUT)).resolves.toBe(7);
    // The settler's batch that stored the result carried the events: they are in the log now.
    expect(await eventsOf(sent.id)).toEqual(['task-received', 'task-started', 'task-succeeded']);
  }, 30_000);

  it('control enable-events turns a live worker\u2019s events on, disable-events off again', async () => {
    const { fixture, workers } = e2e();
    await workers.spawn('worker', ['-A', BEAT_APP, '--pool', 'inline', '--hostname', 'w-events'], quiet).ready();
    const client = fixture.app();
    const before = client.sendTask('e2e.tick', [1]);
    await before.get(TIMEOUT);
    expect(await eventsOf(before.id)).toEqual([]);

    const enabled = await runCli(['control', 'enable-events', '-A', BEAT_APP, '--json'], fixture.prefix, quiet);
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toEqual({ 'w-events': { events: true } });
    const during = client.sendTask('e2e.tick', [2]);
    await during.get(TIMEOUT);
    expect(await eventsOf(during.id)).toEqual(['task-received', 'task-started', 'task-succeeded']);

    const disabled = await runCli(['control', 'disable-events', '-A', BEAT_APP], fixture.prefix, quiet);
    expect(disabled).toMatchObject({ code: 0, stdout: 'w-events: {"events":false}\n' });
    const after = client.sendTask('e2e.tick', [3]);
    await after.get(TIMEOUT);
    expect(await eventsOf(after.id)).toEqual([]);
  }, 40_000);

  it('worker -B fires the periodic tasks in the worker process and warns on stderr not to run two', async () => {
    const { workers } = e2e();
    const worker = workers.spawn('worker', ['-A', BEAT_APP, '--pool', 'inline', '-B']);
    await worker.ready();
    await untilFired(worker, 2);
    // The worker runs what its own scheduler sent.
    await worker.waitForLog((line) => line.msg.startsWith('Task e2e.tick[beat:tick:') && line.state === 'SUCCESS');
    expect(worker.stderr.join('\n')).toContain('Do not start two workers with -B');
    worker.signal('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(worker.lines.map((line) => line.msg)).toContain('Scheduler closed');
  }, 30_000);
});

describe('celeriac worker and beat on memory://', () => {
  const e2e = useE2e('e2e-memory-refused');

  it.each(['worker', 'beat'] as const)('celeriac %s refuses to start, saying why (exit 1)', async (command) => {
    const { workers } = e2e();
    const started = workers.spawn(command, ['-A', `${__dirname}/fixtures/memory-app.js`]);
    expect(await started.exited).toEqual({ code: 1, signal: null });
    const fatal = started.lines.find((line) => line.level === 60);
    expect(fatal).toMatchObject({ code: 'CELERIAC_INVALID_OPTION' });
    expect(fatal?.msg).toContain(`The app's broker is memory://, which lives inside one process`);
    expect(started.lines.map((line) => line.msg)).not.toContainEqual(expect.stringMatching(/ ready$/));
  });
});
