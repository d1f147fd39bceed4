/**
 * The worker's readable log lines, as an operator reads them: a retry says why, as Celery's does,
 * and the JSON tail does not repeat the id and task name the message already shows. JSON logs keep
 * every field for the tools that read them.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { FIXTURE_APP, useE2e } from './support/worker-process';

const ROOT = resolve(__dirname, '../../../..');
const CLI = join(ROOT, 'packages/celeriac/dist/cli/main.js');

describe('celeriac worker: readable log lines', () => {
  const e2e = useE2e('e2e-log-lines');

  it('a retry line says why, and no line repeats the id and task in its tail', async () => {
    const { fixture, workers } = e2e();
    // Readable text (no --json-logs): spawned here, not through WorkerProcess.
    const child = spawn(process.execPath, [CLI, 'worker', '-A', FIXTURE_APP, '--pool', 'inline'], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: fixture.url, CELERIAC_TEST_PREFIX: fixture.prefix },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const waiting = new Set<(line: string) => void>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const look of waiting) look(line);
    });
    /** The first line, logged or to come, that matches. */
    const seen = (match: (line: string) => boolean) =>
      new Promise<string>((found) => {
        const logged = lines.find(match);
        if (logged !== undefined) return found(logged);
        const look = (line: string) => {
          if (!match(line)) return;
          waiting.delete(look);
          found(line);
        };
        waiting.add(look);
      });
    const exited = new Promise((done) => child.once('exit', done));
    try {
      await seen((line) => line.includes(' ready '));
      const result = fixture.app().sendTask('e2e.failOnce', ['ok']);
      await expect(result.get({ timeout: 15_000 })).resolves.toBe('ok');
      const retry = await seen((line) => line.includes(`Task e2e.failOnce[${result.id}] failed;`));
      expect(retry).toContain(
        `Task e2e.failOnce[${result.id}] failed; retry 1/1 in 10 ms: E2eFailure('e2e.failOnce: first run') {`,
      );
      const succeeded = await seen((line) => line.includes(`Task e2e.failOnce[${result.id}] succeeded`));
      for (const line of [retry, succeeded]) {
        const tail = line.slice(line.indexOf(' {'));
        expect(tail).not.toContain('"id"');
        expect(tail).not.toContain('"task"');
      }
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    // The JSON lines keep both fields.
    const json = workers.start(['--pool', 'inline']);
    await json.ready();
    const again = fixture.app().sendTask('e2e.failOnce', ['ok']);
    await again.get({ timeout: 15_000 });
    await expect(json.waitForLog((line) => line.state === 'RETRY')).resolves.toMatchObject({
      id: again.id,
      task: 'e2e.failOnce',
      msg: `Task e2e.failOnce[${again.id}] failed; retry 1/1 in 10 ms: E2eFailure('e2e.failOnce: first run')`,
    });
  }, 40_000);
});
