/**
 * `worker.start()` with a process pool whose children cannot start: it rejects with the typed error
 * of the child (CELERIAC_APP_MODULE), the worker ends closed, and no child is left behind. Runs an
 * in-process worker of the built `celeriac` in a process of its own (pool children start from
 * dist/; `npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { adminClient, deleteKeysUnder, freshPrefix, REDIS_URL } from '@celeriac/test-support';

const ROOT = resolve(__dirname, '../../../..');
const FIXTURES = join(__dirname, 'fixtures');

/** Starts a worker of `pool` on `appModule` and prints how start() ended, then closes the app. */
const START_WORKER = `
const { Celeriac } = require('celeriac');
const [pool, appModule] = process.argv.slice(2);
const app = new Celeriac({ broker: process.env.REDIS_URL, prefix: process.env.PREFIX });
const worker = app.worker({ pool, concurrency: 2, appModule });
worker.start().then(
  () => ({ started: true }),
  (error) => ({ name: error.name, code: error.code, message: error.message, state: worker.state }),
).then(async (outcome) => {
  await app.close();
  console.log(JSON.stringify(outcome));
});
`;

interface StartOutcome {
  started?: true;
  name?: string;
  code?: string;
  message?: string;
  state?: string;
}

/**
 * Runs START_WORKER (from stdin: under `node -e` the pool children would inherit the script as a flag);
 * resolves once its process exited by itself, which a pool child left running would prevent.
 */
function startWorker(pool: string, appModule: string, prefix: string): Promise<StartOutcome> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-', pool, appModule], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL, PREFIX: prefix },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) => {
      if (code !== 0) return fail(new Error(`The worker process exited with code ${code}: ${stderr}`));
      done(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as StartOutcome);
    });
    child.stdin.end(START_WORKER);
  });
}

describe('a process pool whose children cannot start', () => {
  const prefix = freshPrefix('e2e-pool-start');

  afterAll(async () => {
    const redis = adminClient();
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  });

  const cases = [
    ['a missing app module', join(FIXTURES, 'no-such-module.js'), /was not found/],
    ['an app module that throws in the child', join(FIXTURES, 'fails-in-children.js'), /refuses to load in a pool/],
    ['an app module that exits the child', join(FIXTURES, 'exits-in-children.js'), /exited \(exit code 3\)/],
  ] as const;

  for (const pool of ['prefork', 'fork']) {
    it.each(cases)(
      `pool ${pool}, %s: start() rejects with CELERIAC_APP_MODULE and the worker is closed`,
      async (_what, appModule, message) => {
        const outcome = await startWorker(pool, appModule, prefix);
        expect(outcome).toMatchObject({ name: 'CeleriacError', code: 'CELERIAC_APP_MODULE', state: 'closed' });
        expect(outcome.message).toMatch(message);
      },
    );
  }
});
