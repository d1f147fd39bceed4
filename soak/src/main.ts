/**
 * `npm run soak`: a long run under faults, on a broker of the soak's own. Starts the broker and a
 * fleet of workers (prefork, fork, inline), sends tasks evenly over the run while injecting faults
 * on a seeded schedule, waits for the last results, stops the workers with SIGTERM, and prints the
 * report. Exits 1 when anything was lost, wrong, never told, stuck or hung. Options: options.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Celeriac } from 'celeriac';
import { RestartableRedis } from '@celeriac/test-support';
import { FaultInjector } from './faults';
import { Fleet } from './fleet';
import { parseSoakOptions } from './options';
import { soakReport } from './report';
import { faultSchedule } from './schedule';
import { Sender } from './sender';

/** How long the last results may take once sending ended (ms). */
const DRAIN_MS = 120_000;
/** How long each worker has to exit on SIGTERM (ms). */
const STOP_MS = 30_000;

async function main(): Promise<number> {
  const options = parseSoakOptions(process.argv.slice(2));
  const folder = mkdtempSync(join(tmpdir(), 'celeriac-soak-'));
  const runsFile = join(folder, 'runs.log');
  const redis = await RestartableRedis.start();
  const prefix = `celeriac-soak-${options.seed}`;
  const startedAt = Date.now();
  say(
    `soak: ${options.tasks} tasks over ${options.seconds} s, seed ${options.seed}, ` +
      `faults ${options.faults.join(',') || 'none'}`,
  );
  say(`soak: Redis ${redis.url} (append-only, fsync always), runs in ${runsFile}`);
  const fleet = new Fleet({ SOAK_BROKER_URL: redis.url, SOAK_PREFIX: prefix, SOAK_RUNS_FILE: runsFile });
  const app = new Celeriac({ broker: redis.url, prefix, visibilityTimeout: '10s' });
  const injector = new FaultInjector(redis, fleet, prefix);
  const sender = new Sender(app, options.seed);
  try {
    const injecting = (async () => {
      for (const fault of faultSchedule(options)) {
        const wait = startedAt + fault.at - Date.now();
        if (wait > 0) await new Promise((done) => setTimeout(done, wait));
        await injector.inject(fault);
        say(`soak: ${seconds(startedAt)} s ${fault.kind} ${injector.injected.at(-1)?.target ?? ''}`);
      }
    })();
    await Promise.all([sender.run(options.tasks, options.seconds * 1_000), injecting]);
    say(`soak: all sent after ${seconds(startedAt)} s; waiting for the last results`);
    await sender.settled(DRAIN_MS);
    await fleet.stopAll(STOP_MS);
    const silent = sender.sent.filter((task) => task.outcome === undefined).map((task) => task.id);
    const records = await app.backend.getMany(silent);
    const report = soakReport({
      sent: sender.sent,
      runsFile,
      faults: injector.injected,
      garbageIds: injector.garbageIds,
      dead: await app.broker.listDead('default', { limit: 10_000 }),
      records: new Map(silent.map((id, index) => [id, records[index]])),
      workers: [...fleet.records.values()],
    });
    for (const line of report.lines) say(line);
    say(report.ok ? 'soak: OK' : 'soak: FAILED');
    return report.ok ? 0 : 1;
  } finally {
    injector.close();
    await fleet.stopAll(1_000);
    await app.close();
    await redis.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Whole seconds since `since`. */
function seconds(since: number): number {
  return Math.round((Date.now() - since) / 1000);
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
