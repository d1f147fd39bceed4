/**
 * Events and the failed-task registry against a real `celeriac worker` process: the whole life of a
 * task in the event log (API and `celeriac events`), and a failed task kept, shown, retried from the
 * registry until it succeeds, or discarded (`celeriac failed`).
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { StoredEvent } from 'celeriac';
import { REDIS_URL } from '@celeriac/test-support';
import { runCli } from './support/beat-cli';
import { FIXTURE_APP, useE2e } from './support/worker-process';

const ROOT = resolve(__dirname, '../../../..');
const CLI = join(ROOT, 'packages/celeriac/dist/cli/main.js');

/** Runs `celeriac events --json ...` until it prints an event matching `last`, then stops it (SIGTERM). */
function tailEvents(
  args: string[],
  prefix: string,
  last: (event: StoredEvent) => boolean,
): Promise<{ events: StoredEvent[]; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'events', '--json', ...args], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL, CELERIAC_TEST_PREFIX: prefix },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: StoredEvent[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const event = JSON.parse(line) as StoredEvent;
    events.push(event);
    if (last(event)) child.kill('SIGTERM');
  });
  return new Promise((resolvePromise) => child.once('close', (code) => resolvePromise({ events, code, stderr })));
}

describe('events and the failed-task registry', () => {
  const e2e = useE2e('e2e-events');

  it('shows the whole life of a task, in order, through app.events and celeriac events', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'inline']);
    await worker.ready();
    // Events are off by default: the sender turns them on as the worker's app module does.
    const app = fixture.app({ events: true });
    const result = app.sendTask<number>('e2e.add', [2, 3]);
    await expect(result).resolves.toBe(5);

    const controller = new AbortController();
    const seen: StoredEvent[] = [];
    for await (const event of app.events.stream({ since: '1m', task: result.id, signal: controller.signal })) {
      seen.push(event);
      if (event.type === 'task-succeeded') controller.abort();
    }
    expect(seen.map((event) => event.type)).toEqual(['task-sent', 'task-received', 'task-started', 'task-succeeded']);
    expect(seen[3]).toMatchObject({
      taskId: result.id,
      task: 'e2e.add',
      queue: 'default',
      hostname: expect.any(String),
      pid: worker.child.pid,
      retries: 0,
      runtime: expect.any(Number),
    });
    // Payloads are off by default: no arguments or results in the log.
    expect(seen.some((event) => 'args' in event || 'result' in event)).toBe(false);
    expect((await app.events.recent({ type: 'worker-online' })).map((event) => event.pid)).toContain(worker.child.pid);

    const tail = await tailEvents(
      ['-A', FIXTURE_APP, '--since', '1m', '--task', result.id],
      fixture.prefix,
      (event) => event.type === 'task-succeeded',
    );
    expect(tail.code).toBe(0);
    expect(tail.events.map((event) => event.type)).toEqual([
      'task-sent',
      'task-received',
      'task-started',
      'task-succeeded',
    ]);
    expect(tail.events.map((event) => event.eventId)).toEqual(seen.map((event) => event.eventId));
  });

  it('celeriac events exits 1 with a clear message when Redis is unreachable', async () => {
    const { fixture } = e2e();
    const run = await runCli(['events', '-A', FIXTURE_APP], fixture.prefix, { REDIS_URL: 'redis://127.0.0.1:1/0' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('CELERIAC_BROKER_UNAVAILABLE');
  });

  it('keeps a failed task in the registry; retried from it, it runs again under its id and succeeds', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'inline']);
    await worker.ready();
    const app = fixture.app();
    const result = app.sendTask<string>('e2e.failUntilMarked', ['ok', 'retry-me']);
    await expect(result).rejects.toMatchObject({ remote: { name: 'E2eFailure' } });
    const cli = (...args: string[]) => runCli(['failed', ...args, '-A', FIXTURE_APP], fixture.prefix);

    const listed = await cli('list', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id: result.id,
        queue: 'default',
        task: 'e2e.failUntilMarked',
        attempts: 1,
        error: { name: 'E2eFailure', message: 'e2e.failUntilMarked: retry-me is not marked' },
      }),
    ]);
    const shown = await cli('show', result.id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('args:      ["ok","retry-me"]');
    expect(shown.stdout).toMatch(/E2eFailure: e2e\.failUntilMarked: retry-me is not marked\n\s*at /);
    const failedEvents = await app.events.recent({ task: result.id, type: 'task-failed' });
    expect(failedEvents).toEqual([
      expect.objectContaining({
        error: { name: 'E2eFailure', message: 'e2e.failUntilMarked: retry-me is not marked' },
      }),
    ]);

    await fixture.redis().set(`${fixture.prefix}:marks:retry-me`, '1');
    await expect(cli('retry', result.id)).resolves.toMatchObject({ code: 0, stdout: 'Retried 1 failed task(s).\n' });
    await expect(app.result<string>(result.id).get({ timeout: 30_000 })).resolves.toBe('ok');
    expect(await app.result(result.id).record()).toMatchObject({ state: 'SUCCESS', retries: 0 });
    await expect(cli('list')).resolves.toMatchObject({ code: 0, stdout: 'No failed tasks.\n' });
    await expect(cli('retry', result.id)).resolves.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('1 of the ids given were not in the failed-task registry'),
    });
  });

  it('has a failed task in the registry the moment its caller sees it fail, so it can be retried at once', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2']);
    await worker.ready();
    const app = fixture.app();
    // Before the registry entry was written ahead of the FAILURE record, about 1 in 4 was missing.
    const missing: string[] = [];
    for (let round = 0; round < 25; round += 1) {
      const result = app.sendTask('e2e.failUntilMarked', ['ok', `never-${round}`]);
      await result.catch(() => undefined);
      if ((await app.failed.show(result.id)) === undefined) missing.push(result.id);
    }
    expect(missing).toEqual([]);
    expect(await app.failed.discard('all')).toBe(25);
  });

  it('a sender that saw its task fail waits for the new run once another process retried it', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2']);
    await worker.ready();
    const sender = fixture.app();
    const operator = fixture.app(); // another process's app, such as the dashboard's or the CLI's
    const result = sender.sendTask<string>('e2e.failUntilMarked', ['ok', 'retried-elsewhere']);
    await expect(result).rejects.toMatchObject({ remote: { name: 'E2eFailure' } });
    await fixture.redis().set(`${fixture.prefix}:marks:retried-elsewhere`, '1');
    expect(await operator.failed.retry(result.id)).toEqual([result.id]);
    // The sender heard the first run's FAILURE; that notice must not answer a wait begun after the retry.
    await expect(sender.result<string>(result.id).get({ timeout: 30_000 })).resolves.toBe('ok');
  });

  it('discards failed tasks: by id, or every one with --all, and refuses to guess without either', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'inline']);
    await worker.ready();
    const app = fixture.app();
    const results = ['a', 'b', 'c'].map((name) => app.sendTask('e2e.failUntilMarked', [name, `never-${name}`]));
    await Promise.all(
      results.map((result) => expect(result).rejects.toMatchObject({ remote: { name: 'E2eFailure' } })),
    );
    const cli = (...args: string[]) => runCli(['failed', ...args, '-A', FIXTURE_APP], fixture.prefix);
    await expect(cli('discard')).resolves.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Give the ids to discard, or --all'),
    });
    await expect(cli('discard', results[0]!.id)).resolves.toMatchObject({
      code: 0,
      stdout: 'Discarded 1 failed task(s).\n',
    });
    expect((await app.failed.list()).map((task) => task.id).sort()).toEqual([results[1]!.id, results[2]!.id].sort());
    await expect(cli('discard', '--all', '-Q', 'default')).resolves.toMatchObject({
      code: 0,
      stdout: 'Discarded 2 failed task(s).\n',
    });
    expect(await app.failed.list()).toEqual([]);
  });
});
