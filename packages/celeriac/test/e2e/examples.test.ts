/**
 * Every example runs as its README says (built by `npm test` first), on the real Redis, exits 0,
 * and prints what shows it worked. Each run gets a prefix of its own through
 * CELERIAC_EXAMPLE_PREFIX (the examples that start worker processes pick a random one themselves
 * and remove their keys); the keys under the given prefix are removed after the run.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { adminClient, deleteKeysUnder, freshPrefix } from '@celeriac/test-support';

const ROOT = resolve(__dirname, '../../../..');

/**
 * The Redis the examples run on: the single node (`REDIS_URL`, by default 6379), whatever
 * `CELERIAC_REDIS_TOPOLOGY` says. Besides their apps, the examples open plain ioredis clients of their
 * own (a PING before they start, the cleanup of their keys) that take `redis://` URLs only.
 */
const EXAMPLES_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** Runs `node <script>` from the repository root under `prefix`; resolves with its exit code and output. */
function run(script: string, prefix: string): Promise<{ code: number; output: string }> {
  const env = { ...process.env, REDIS_URL: EXAMPLES_REDIS_URL, CELERIAC_EXAMPLE_PREFIX: prefix };
  return new Promise((done) => {
    // Killed after 60 s, before the test's own limit (90 s), so no example outlives its test.
    execFile(
      process.execPath,
      [resolve(ROOT, script)],
      { cwd: ROOT, env, timeout: 60_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('the examples', () => {
  it.each([
    [
      'quickstart (npm run demo)',
      'examples/quickstart/dist/main.js',
      /Redis answered PING[\s\S]*math\.add\(2, 3\) = 5/,
    ],
    [
      'celery-interop',
      'examples/celery-interop/dist/main.js',
      new RegExp(
        [
          String.raw`proj\.add\(2, 3, z=10\) = 15`,
          'raised ValueError',
          String.raw`proj\.add\(1, 1\) revoked before its countdown ended: REVOKED`,
          // The Celeriac worker answers celery inspect ping beside the Python one.
          '2 nodes online',
          "= 'Hello, Ada!'",
          String.raw`chord\(ts\.greet x 2\)\(proj\.join\) = 'Hello, Ada\. Hello, Grace\.'`,
          'Both directions answered',
        ].join(String.raw`[\s\S]*`),
      ),
    ],
    ['dead-letters', 'examples/dead-letters/dist/main.js', /discardDead\('reports', \[id\]\) discarded 1/],
    ['postgres', 'examples/postgres/dist/main.js', /orders stored: A-1, C-3\nreceipts sent: A-1, C-3 \(none/],
    ['canvas', 'examples/canvas/dist/main.js', /Broker: Redis at[\s\S]*chord with a failing member: ChordError/],
    ['worker-cli', 'examples/worker-cli/dist/run-demo.js', /The worker exited with code 0 after SIGTERM/],
    ['beat', 'examples/beat/dist/run-demo.js', /each fired once, none missing, all ran/],
    [
      'flow-control',
      'examples/flow-control/dist/main.js',
      new RegExp(
        [
          /at most 2 at once/.source,
          /at most 1 at once per account/.source,
          /raised to 50\/s at run time/.source,
          /5 edits ran once, as "products at version 5"/.source,
        ].join('[\\s\\S]*'),
      ),
    ],
    [
      'operations',
      'examples/operations/dist/run-demo.js',
      new RegExp(
        [
          /orders\.ship after the retry: order A-1001 shipped/.source,
          /No failed tasks\./.source,
          /celeriac_task_retries_total\{task="orders\.ship",queue="default"\} 1/.source,
          /celeriac_queue_tasks\{queue="default",state="failed"\} 0/.source,
        ].join('[\\s\\S]*'),
      ),
    ],
  ])(
    '%s runs to the end',
    async (name, script, shows) => {
      const prefix = freshPrefix(`examples-${name.split(' ')[0]}`);
      const redis = adminClient(EXAMPLES_REDIS_URL);
      try {
        const { code, output } = await run(script, prefix);
        // The whole output is in the failure message, so a failed run says why.
        expect({ code, output }).toEqual({ code: 0, output: expect.stringMatching(shows) });
      } finally {
        await deleteKeysUnder(redis, prefix);
        await redis.quit();
      }
    },
    90_000,
  );
});
