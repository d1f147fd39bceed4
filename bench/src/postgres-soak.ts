/**
 * A long run on PostgreSQL alone (broker and results in one fresh database): `BENCH_SOAK_TASKS`
 * (default 1,000,000) no-op tasks through one inline worker at c=100 while a sender keeps a backlog
 * of about 20,000, with results stored and expiring after `BENCH_SOAK_RESULT_TTL` ms (default
 * 60,000). At every tenth of the run it reports:
 *
 * - the claim time: the median of 21 probes, each the claim statement (the one every fetch runs,
 *   through the hot table's indexes) taking one message from a probe queue, on a session of its own;
 * - the sizes of the hot table (`messages`, indexes included), of the results table and of the
 *   whole schema, with the hot table's live and dead rows and how often autovacuum ran on it;
 * - the throughput of that tenth.
 *
 * A hot table that bloats shows as a claim time and a `messages` size that grow with the history;
 * both should stay flat. `POSTGRES_URL` names the server.
 */
import { randomBytes } from 'node:crypto';
import { Celeriac } from 'celeriac';
import type { PostgresBroker } from '@celeriac/postgres';
import { Client } from 'pg';
import { withSession } from './pg-session';

const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TASKS = Number(process.env.BENCH_SOAK_TASKS ?? 1_000_000);
const RESULT_TTL = Number(process.env.BENCH_SOAK_RESULT_TTL ?? 60_000);
const BACKLOG = 20_000;
const BATCH = 1_000;
const CHECKPOINTS = 10;

/** One row of the report. */
interface Checkpoint {
  done: number;
  jobsPerSecond: number;
  claimMs: number;
  messagesKb: number;
  resultsKb: number;
  schemaKb: number;
  liveRows: number;
  deadRows: number;
  autovacuums: number;
}

/** The sizes and row counts of the schema's tables. */
async function tableFigures(
  url: string,
  schema: string,
): Promise<Omit<Checkpoint, 'done' | 'jobsPerSecond' | 'claimMs'>> {
  return withSession(url, async (client) => {
    const { rows } = await client.query<Record<string, string>>(
      `SELECT pg_total_relation_size($1 || '.messages') / 1024 AS messages,
         pg_total_relation_size($1 || '.results') / 1024 AS results,
         (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relkind = 'r') / 1024 AS schema,
         s.n_live_tup AS live, s.n_dead_tup AS dead, s.autovacuum_count AS autovacuums
       FROM pg_stat_user_tables s WHERE s.schemaname = $1 AND s.relname = 'messages'`,
      [schema],
    );
    const row = rows[0] ?? {};
    return {
      messagesKb: Number(row.messages),
      resultsKb: Number(row.results),
      schemaKb: Number(row.schema),
      liveRows: Number(row.live),
      deadRows: Number(row.dead),
      autovacuums: Number(row.autovacuums),
    };
  });
}

/**
 * The median time of the claim statement taking one message from the probe queue, on a session of
 * its own (so the pool's queue is not counted); the probe message is deleted after.
 */
async function claimTime(broker: PostgresBroker, probe: Client): Promise<number> {
  const schema = broker.connection.schema;
  const samples: number[] = [];
  for (let round = 0; round < 21; round += 1) {
    const id = `probe-${randomBytes(6).toString('hex')}`;
    await broker.publish([{ id, queue: 'probe', body: '{}', priority: 0, idempotent: false }]);
    const started = performance.now();
    await probe.query(`SELECT * FROM ${schema}.claim(ARRAY['probe'], 1, 60000)`);
    samples.push(performance.now() - started);
    await probe.query(`DELETE FROM ${schema}.messages WHERE id = $1`, [id]);
  }
  samples.sort((a, b) => a - b);
  return Number((samples[10] ?? 0).toFixed(2));
}

async function main(): Promise<void> {
  const database = `bench_soak_${randomBytes(4).toString('hex')}`;
  await withSession(POSTGRES_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const app = new Celeriac({ broker: url.toString(), prefix: 'soak', resultTtl: RESULT_TTL });
  let done = 0;
  let finished = () => {};
  const all = new Promise<void>((resolve) => (finished = resolve));
  const noop = app.task('bench.noop', () => {
    done += 1;
    if (done === TASKS) finished();
  });
  const broker = app.broker as PostgresBroker;
  const worker = app.worker({ pool: 'inline', concurrency: 100 });
  const report: Checkpoint[] = [];
  const probe = new Client({ connectionString: url.toString() });
  try {
    await probe.connect();
    await worker.start();
    let sent = 0;
    const sender = (async () => {
      while (sent < TASKS) {
        if (sent - done > BACKLOG) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const count = Math.min(BATCH, TASKS - sent);
        sent += count;
        await Promise.all(Array.from({ length: count }, () => noop.applyAsync([]).sent));
      }
    })();
    let mark = { done: 0, at: performance.now() };
    for (let checkpoint = 1; checkpoint <= CHECKPOINTS; checkpoint += 1) {
      const target = Math.floor((TASKS * checkpoint) / CHECKPOINTS);
      while (done < target) await new Promise((resolve) => setTimeout(resolve, 100));
      const now = performance.now();
      const jobsPerSecond = Math.round(((done - mark.done) * 1000) / (now - mark.at));
      const claimMs = await claimTime(broker, probe);
      report.push({ done, jobsPerSecond, claimMs, ...(await tableFigures(url.toString(), broker.connection.schema)) });
      console.log(JSON.stringify(report[report.length - 1]));
      mark = { done, at: performance.now() };
    }
    await Promise.all([sender, all]);
    console.log(`soak of ${TASKS} tasks on PostgreSQL (broker and results, result TTL ${RESULT_TTL} ms):`);
    console.table(report);
  } finally {
    await probe.end();
    await worker.close();
    await app.close();
    await withSession(POSTGRES_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
