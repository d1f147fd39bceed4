/**
 * Flow control on Redis: two workers share one concurrency limit (at most 2 reports at once), an
 * account's syncs run one at a time while accounts run side by side, and a rate limit (5 calls a
 * second) is raised at run time with `app.control.rateLimit`, and a burst of edits to one search
 * index is debounced into one reindex with the last edit. Each task notes when it started and ended,
 * and the example prints what those notes show.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Celeriac } from 'celeriac';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
/** The key namespace of the example (`CELERIAC_EXAMPLE_PREFIX` picks another, as the project's tests do). */
const PREFIX = process.env.CELERIAC_EXAMPLE_PREFIX ?? 'celeriac-example-flow';

/** When each run started and ended, by task name (one process: the workers run in-process). */
const runs = new Map<string, Array<{ start: number; end: number; key: string }>>();

function note(task: string, key: string, start: number): void {
  const list = runs.get(task) ?? [];
  list.push({ start, end: Date.now(), key });
  runs.set(task, list);
}

/** The most runs going on at the same moment. */
function mostAtOnce(list: ReadonlyArray<{ start: number; end: number }>): number {
  return Math.max(
    ...list.map((run) => list.filter((other) => other.start <= run.start && other.end > run.start).length),
  );
}

const app = new Celeriac({ broker: REDIS_URL, prefix: PREFIX });

const buildReport = app.task(
  'report.build',
  async (id: number) => {
    const start = Date.now();
    await sleep(50);
    note('report.build', '', start);
    return id;
  },
  { concurrency: 2 },
);

const syncAccount = app.task(
  'account.sync',
  async (account: string, step: number) => {
    const start = Date.now();
    await sleep(40);
    note('account.sync', account, start);
    return step;
  },
  { concurrency: { limit: 1, key: (account: string) => account } },
);

const callApi = app.task(
  'api.call',
  (n: number) => {
    note('api.call', '', Date.now());
    return n;
  },
  { rateLimit: '5/s' },
);

// Edits to an index within half a second of each other make one reindex, with the last edit's version.
const reindex = app.task(
  'search.reindex',
  (index: string, version: number) => {
    note('search.reindex', index, Date.now());
    return `${index} at version ${version}`;
  },
  { debounce: { window: '500ms', key: (index: string) => index } },
);

async function main(): Promise<void> {
  // Two workers, as two machines would run them: the limits hold across both.
  const workers = [app.worker({ concurrency: 4 }), app.worker({ concurrency: 4 })];
  await Promise.all(workers.map((worker) => worker.start()));
  try {
    await Promise.all(Array.from({ length: 10 }, (_, i) => buildReport.delay(i)));
    console.log(
      `report.build: 10 runs on 2 workers of 4 slots, at most ${mostAtOnce(runs.get('report.build')!)} at once`,
    );

    const accounts = ['acme', 'globex', 'initech'];
    await Promise.all(accounts.flatMap((account) => [1, 2, 3].map((step) => syncAccount.delay(account, step))));
    const syncs = runs.get('account.sync')!;
    const perAccount = accounts.map((account) => mostAtOnce(syncs.filter((run) => run.key === account)));
    console.log(
      `account.sync: at most ${Math.max(...perAccount)} at once per account, ${mostAtOnce(syncs)} at once in all`,
    );

    const started = Date.now();
    await Promise.all(Array.from({ length: 10 }, (_, i) => callApi.delay(i)));
    console.log(`api.call at 5/s: 10 calls took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await app.control.rateLimit('api.call', '50/s');
    const faster = Date.now();
    await Promise.all(Array.from({ length: 10 }, (_, i) => callApi.delay(i)));
    console.log(`api.call raised to 50/s at run time: 10 calls took ${((Date.now() - faster) / 1000).toFixed(1)} s`);
    await app.control.rateLimit('api.call', null);

    const edits = [1, 2, 3, 4, 5].map((version) => reindex.delay('products', version));
    const results = await Promise.all(edits);
    const collapsed = edits.filter((edit) => edit.deduplicated).length;
    const reindexed = runs.get('search.reindex')!.length;
    console.log(
      `search.reindex: 5 edits ran ${reindexed === 1 ? 'once' : `${reindexed} times`}, as "${results[0]}" ` +
        `(${collapsed} sends collapsed into the first's task)`,
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
