/**
 * End-to-end tests of Celeriac on PostgreSQL alone: per test, a fresh prefix (so a schema of its
 * own), `celeriac worker` and `celeriac beat` processes on fixtures/postgres-only-app.js, and client
 * apps; afterwards the processes are killed, the apps closed and only that schema dropped.
 */
import { join } from 'node:path';
import type { QueryResultRow } from 'pg';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL, withPostgres } from '@celeriac/test-support';
import { Celeriac } from 'celeriac';
import { WorkerProcesses, type WorkerProcess } from './worker-process';

/** The app module the processes load. */
export const POSTGRES_ONLY_APP = join(__dirname, '../fixtures/postgres-only-app.js');

/** What a test on PostgreSQL alone works with. */
export interface PostgresE2eContext {
  /** The test's prefix, which is also its schema's name. */
  readonly prefix: string;
  /** The database's URL. */
  readonly url: string;
  /** Starts `celeriac <command> -A postgres-only-app.js ...args` on the test's database and prefix. */
  spawn(command: 'worker' | 'beat', args: string[], env?: NodeJS.ProcessEnv): WorkerProcess;
  /** A client app on the test's database and prefix (results in the same database); closed after the test. */
  app(): Celeriac;
  /** Runs one statement on a connection of its own (the test's tables are `"<prefix>".<table>`). */
  query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<Row[]>;
}

/**
 * Declares, in the calling `describe`, a fresh context per test on the PostgreSQL at `url` (the
 * machine's unless given; a function is read when each test starts: a server the suite starts).
 */
export function usePostgresE2e(label: string, url: string | (() => string) = POSTGRES_URL): () => PostgresE2eContext {
  let context: PostgresE2eContext | undefined;
  let apps: Celeriac[] = [];
  let workers: WorkerProcesses | undefined;
  beforeEach(() => {
    const prefix = freshPostgresPrefix(label);
    const database = typeof url === 'function' ? url() : url;
    const processes = new WorkerProcesses(prefix);
    workers = processes;
    context = {
      prefix,
      url: database,
      spawn: (command, args, env = {}) =>
        processes.spawn(command, ['-A', POSTGRES_ONLY_APP, ...args], { CELERIAC_TEST_POSTGRES_URL: database, ...env }),
      app: () => {
        const app = new Celeriac({ broker: database, prefix });
        apps.push(app);
        return app;
      },
      query: (text, values) => withPostgres(async (client) => (await client.query(text, values)).rows, database),
    };
  });
  afterEach(async () => {
    await workers?.stopAll();
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
    if (context) await dropSchema(context.prefix, context.url);
  });
  return () => {
    if (!context) throw new Error('usePostgresE2e: read the context inside a test');
    return context;
  };
}
