/**
 * With Redis down, every command says so the same way: CELERIAC_BROKER_UNAVAILABLE with the cause
 * (ECONNREFUSED host:port), never ioredis's "max retries per request"; the worker waiting for its
 * broker says why.
 */
import { createServer } from 'node:net';
import { runCli } from './support/beat-cli';
import { FIXTURE_APP, WorkerProcess } from './support/worker-process';

/** A port where nothing listens: one the system just gave out and took back. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('celeriac commands with Redis down', () => {
  let down: string;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    down = `redis://127.0.0.1:${port}/0`;
  });

  it.each([
    [['failed', 'list'], 'list the queues'],
    [['failed', 'show', 'some-id'], 'list the queues'],
    [['failed', 'retry', 'some-id'], 'list the queues'],
    [['dead', 'list'], 'list the dead letters of default'],
    [['dead', 'requeue', 'some-id'], 'requeue dead letters of default'],
    [['revoke', 'some-id'], 'revoke task some-id'],
  ])(
    'celeriac %j: CELERIAC_BROKER_UNAVAILABLE with the cause, exit 1',
    async (command, action) => {
      const run = await runCli([...command, '-A', FIXTURE_APP], 'e2e-down-unused', { REDIS_URL: down });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `Could not ${action}: Redis at ${down} is unreachable (connect ECONNREFUSED 127.0.0.1:${port}). Check that ` +
          'Redis runs and that the broker URL is right. (CELERIAC_BROKER_UNAVAILABLE)\n',
      );
    },
    20_000,
  );

  it('the worker waiting for its broker says why', async () => {
    const worker = new WorkerProcess(['-A', FIXTURE_APP, '--pool', 'inline'], {
      REDIS_URL: down,
      CELERIAC_TEST_PREFIX: 'e2e-down-unused',
    });
    try {
      const waiting = await worker.waitForLog((line) => line.msg.startsWith('Still waiting for the broker'));
      expect(waiting).toMatchObject({
        msg: `Still waiting for the broker to answer (connect ECONNREFUSED 127.0.0.1:${port})…`,
        reason: `connect ECONNREFUSED 127.0.0.1:${port}`,
        broker: down,
      });
    } finally {
      await worker.stop();
    }
  }, 20_000);
});
