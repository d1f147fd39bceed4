/**
 * 50 processes starting at once against an empty database: each makes its app and, on one go for
 * all, sends a task, so 50 first statements race to create the schema. Exactly one migration runs
 * (every step recorded once, all in one transaction), every process comes up and sends, and a
 * worker started afterwards runs all 50 tasks. On a server of the suite's own, whose connection
 * limit 50 processes at once cannot exhaust for the other suites.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MIGRATIONS } from '@celeriac/postgres';
import { PostgresServer } from '@celeriac/test-support';
import { usePostgresE2e } from './support/postgres-e2e';

const STARTER = join(__dirname, 'fixtures/postgres-starter.js');
const PROCESSES = 50;

/** One starter process: what it printed, and how it ended. */
interface Starter {
  readonly child: ChildProcess;
  readonly loaded: Promise<void>;
  readonly sent: Promise<string>;
  /** Its exit code, once it exited and its output was read. */
  readonly exited: Promise<number | null>;
  readonly stderr: string[];
}

/** Starts a starter process for the test's database and prefix. */
function startStarter(url: string, prefix: string, index: number): Starter {
  const child = spawn(process.execPath, [STARTER], {
    env: {
      ...process.env,
      CELERIAC_TEST_POSTGRES_URL: url,
      CELERIAC_TEST_PREFIX: prefix,
      CELERIAC_TEST_INDEX: `${index}`,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const printed = (match: (line: string) => boolean, what: string) =>
    new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => match(line) && resolve(line));
      void exited.then((code) =>
        reject(new Error(`starter ${index} exited (${code}) before ${what}: ${stderr.join('\n')}`)),
      );
    });
  const loaded = printed((line) => line === 'loaded', 'loading').then(() => undefined);
  const sent = printed((line) => line.startsWith('{'), 'sending').then(
    (line) => (JSON.parse(line) as { sent: string }).sent,
  );
  // Read only when the test gets that far.
  for (const promise of [loaded, sent]) promise.catch(() => undefined);
  return { child, loaded, sent, exited, stderr };
}

describe('PostgreSQL: 50 processes starting at once against an empty database', () => {
  let server: PostgresServer;
  let starters: Starter[] = [];
  beforeAll(async () => {
    server = await PostgresServer.start({ settings: { max_connections: 200 } });
  });
  afterEach(async () => {
    for (const { child } of starters) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(starters.map((starter) => starter.exited));
    starters = [];
  });
  afterAll(() => server.remove());
  const e2e = usePostgresE2e('e2e_starts', () => server.url());

  it('one migration runs, all 50 come up and send, and their tasks run', async () => {
    const { prefix, url, spawn: spawnCli, app, query } = e2e();
    const [schemas] = await query<{ count: string }>(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, [prefix]);
    expect(schemas?.count).toBe('0');
    starters = Array.from({ length: PROCESSES }, (_, index) => startStarter(url, prefix, index));
    await Promise.all(starters.map((starter) => starter.loaded));
    // Go, all at once: each one's first statement migrates.
    for (const { child } of starters) child.stdin!.end();
    const ids = await Promise.all(starters.map((starter) => starter.sent));
    await expect(Promise.all(starters.map((starter) => starter.exited))).resolves.toEqual(starters.map(() => 0));

    // Each step applied once, all by one process in one transaction (now() is the transaction's start).
    const steps = await query<{ id: number; applied_at: Date }>(`SELECT id, applied_at FROM "${prefix}".migrations`);
    expect(steps.map((step) => step.id).sort((a, b) => a - b)).toEqual(
      MIGRATIONS.map((step) => step.id).sort((a, b) => a - b),
    );
    expect(new Set(steps.map((step) => step.applied_at.getTime())).size).toBe(1);

    // Every process's task was queued, and a worker runs them all.
    const worker = spawnCli('worker', ['-c', '4']);
    await worker.ready();
    const client = app();
    await expect(Promise.all(ids.map((id) => client.result<number>(id).get({ timeout: 30_000 })))).resolves.toEqual(
      ids.map((_, index) => index + 1),
    );
  }, 60_000);
});
