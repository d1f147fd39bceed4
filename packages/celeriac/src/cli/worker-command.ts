/**
 * `celeriac worker`: runs tasks from the app module's queues until SIGTERM or SIGINT. The first
 * signal drains (no new tasks, prefetched ones go back, running ones get --shutdown-timeout); a
 * second one stops at once, handing running tasks back to the queue.
 */
import { Command, Option } from 'commander';
import { runtimeOf } from '@celeriac/core/internal';
import { Worker, type PoolKind, type WorkerOptions } from '@celeriac/worker';
import { parseAutoscale, type LoadedApp } from '@celeriac/worker/internal';
import type { Logger } from 'pino';
import { createLogger, type LogLevel } from './logger';
import { loadAppModuleOrExit } from './load';
import { logLevelOption } from './log-level-option';
import { assertCrossProcessBroker } from './cross-process-broker';
import { startEmbeddedBeat } from './embedded-beat';
import { duration, list, positiveInteger, repeated, tcpPort, wholeNumber } from './parse';
import { closeAndExit, onStopSignals, startOrExit } from './lifecycle';
import { redact } from './redact';
import { appOption } from './app-option';

interface WorkerFlags {
  app: string;
  queues?: string[];
  concurrency?: number;
  autoscale?: string;
  autoscaleIdle?: number;
  pool: PoolKind;
  maxTasksPerChild?: number;
  maxMemoryPerChild?: number;
  prefetch?: number;
  timeLimit?: number;
  softTimeLimit?: number;
  shutdownTimeout: number;
  hostname?: string;
  loglevel: LogLevel;
  jsonLogs?: boolean;
  metricsPort?: number;
  metricsHost?: string;
  metricsAllowedHost?: string[];
  events?: boolean;
  beat?: boolean;
}

/** Adds the `worker` command to the program. */
export function workerCommand(): Command {
  return new Command('worker')
    .description(
      "Run tasks from the app's queues until stopped (SIGTERM/SIGINT drain gracefully; a second signal stops at once).",
    )
    .addOption(appOption('the module that creates and exports the app (compiled .js, or .ts with tsx installed)'))
    .option(
      '-Q, --queues <names>',
      "queues to consume, in priority order, comma-separated (default: the app's default queue)",
      list,
    )
    .option('-c, --concurrency <n>', 'tasks run at once (default: number of CPUs)', positiveInteger)
    .option(
      '--autoscale <max,min>',
      'grow the prefork or fork pool up to MAX while tasks wait, shrink it to MIN (default 1) when idle; not with -c',
    )
    .option(
      '--autoscale-idle <duration>',
      'with --autoscale, how long a slot stays unused before the pool shrinks by it (default: 30s)',
      duration,
    )
    .addOption(
      new Option(
        '--pool <kind>',
        'prefork: long-lived children; fork: a new child per task; inline: inside this process',
      )
        .choices(['prefork', 'fork', 'inline'])
        .default('prefork'),
    )
    .option('--max-tasks-per-child <n>', 'replace a prefork child after n tasks', positiveInteger)
    .option(
      '--max-memory-per-child <MB>',
      'replace a prefork child whose memory passed this many MB after a task',
      positiveInteger,
    )
    .option(
      '--prefetch <n>',
      'tasks reserved ahead of free slots (default: concurrency, or the size now with --autoscale; 0 for long tasks)',
      wholeNumber,
    )
    .option('--time-limit <duration>', 'hard limit for tasks that set none: the child is killed (e.g. 30s)', duration)
    .option('--soft-time-limit <duration>', "soft limit for tasks that set none: the task's signal aborts", duration)
    .option('--shutdown-timeout <duration>', 'on SIGTERM, how long running tasks may take to finish', duration, 30_000)
    .option('--hostname <name>', "this worker's name in logs and inspection (default: host:pid)")
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics at http://<host>:<port>/metrics (0: any free port)',
      tcpPort,
    )
    .option('--metrics-host <address>', 'the address the metrics endpoint listens on (default: 127.0.0.1)')
    .option(
      '--metrics-allowed-host <name>',
      'answer scrapes that name this host too (repeatable; loopback names and IP addresses always are)',
      repeated,
    )
    .option('-E, --events', "emit task and worker events from this worker, even when the app's events are off")
    .option('-B, --beat', 'also fire the periodic tasks, in this process (one-process setups: never on two workers)')
    .addOption(logLevelOption())
    .option('--json-logs', 'log JSON lines instead of readable text')
    .action((flags: WorkerFlags) => runWorker(flags));
}

async function runWorker(flags: WorkerFlags): Promise<void> {
  const logger = createLogger({ level: flags.loglevel, json: flags.jsonLogs === true, name: 'worker' });
  // Checked before the app loads: a mistyped flag fails at once.
  const autoscale = orExit(() => autoscaleOption(flags));
  const { app, path } = await loadAppModuleOrExit(flags.app, logger);
  const worker = orExit(
    () =>
      new Worker(app, {
        queues: flags.queues,
        concurrency: flags.concurrency,
        ...(autoscale === undefined ? {} : { autoscale }),
        pool: flags.pool,
        // The file found: pool children load it without resolving `-A` again.
        appModule: path,
        ...(flags.events ? { events: true } : {}),
        maxTasksPerChild: flags.maxTasksPerChild,
        maxMemoryPerChild: flags.maxMemoryPerChild,
        prefetch: flags.prefetch,
        timeLimit: flags.timeLimit,
        softTimeLimit: flags.softTimeLimit,
        shutdownTimeout: flags.shutdownTimeout,
        hostname: flags.hostname,
        logger,
        metrics: metricsOption(flags),
      }),
  );
  logStrayRejections(logger);
  onStopSignals(
    logger,
    (signal) => {
      logger.info({ signal }, `Received ${signal}: draining (send it again to stop at once)`);
      void closeAndExit(logger, 'Worker', async () => {
        await worker.close();
        await app.close();
      });
    },
    (signal) => {
      logger.warn({ signal }, `Received ${signal} again: stopping now; running tasks go back to the queue`);
      void worker.forceClose();
    },
  );
  await startOrExit(
    logger,
    app,
    'worker',
    async () => {
      assertCrossProcessBroker(app, 'worker');
      await worker.start();
      if (flags.beat) await startEmbeddedBeat(app, logger);
    },
    () => app.broker.unreachable?.(),
  );
  // A `celeriac control shutdown` stops the worker from inside: then the process exits too.
  void worker.stopped.then(() => closeAndExit(logger, 'Worker', () => app.close()));
  logger.info(banner(app, worker), `Worker ${worker.options.hostname} ready`);
}

/** The worker's `autoscale` option from `--autoscale MAX,MIN` and `--autoscale-idle`. */
function autoscaleOption(flags: WorkerFlags): WorkerOptions['autoscale'] {
  if (flags.autoscale === undefined) {
    if (flags.autoscaleIdle === undefined) return undefined;
    process.stderr.write('error: --autoscale-idle needs --autoscale <max,min> too\n');
    process.exit(1);
  }
  const bounds = parseAutoscale(flags.autoscale);
  return flags.autoscaleIdle === undefined ? bounds : { ...bounds, idle: flags.autoscaleIdle };
}

/**
 * Runs `make`; an option it refuses ends the process (exit 1) with the message and the error's code
 * on stderr, as a flag that does not parse does.
 */
function orExit<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    process.stderr.write(`error: ${(error as Error).message}${typeof code === 'string' ? ` (${code})` : ''}\n`);
    process.exit(1);
  }
}

/** The worker's `metrics` option from the flags; --metrics-host alone is a mistake worth saying. */
function metricsOption(flags: WorkerFlags): WorkerOptions['metrics'] {
  if (flags.metricsPort === undefined) {
    for (const [given, flag] of [
      [flags.metricsHost, '--metrics-host'],
      [flags.metricsAllowedHost, '--metrics-allowed-host'],
    ] as const) {
      if (given === undefined) continue;
      process.stderr.write(`error: ${flag} needs --metrics-port <port> too\n`);
      process.exit(1);
    }
    return undefined;
  }
  return {
    port: flags.metricsPort,
    ...(flags.metricsHost === undefined ? {} : { host: flags.metricsHost }),
    ...(flags.metricsAllowedHost === undefined ? {} : { allowedHosts: flags.metricsAllowedHost }),
  };
}

/**
 * A task may leave a rejected promise that nobody awaits. Node ends the process on one by default,
 * which in the inline pool (or in the worker's own code) would take every running task down with
 * it; the worker logs it with its stack instead and keeps serving. Pool children keep Node's
 * default: a child that dies of one fails only its own task (WorkerLostError).
 */
function logStrayRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    const error =
      reason instanceof Error
        ? { name: reason.name, message: reason.message, stack: reason.stack }
        : { value: String(reason) };
    logger.error(
      { error },
      'A promise was rejected and nobody awaited it (a task or hook left it); the worker goes on',
    );
  });
}

/**
 * What the ready line tells, as Celery's banner does: where the worker listens (a sender with another
 * broker or prefix never reaches it), how it runs tasks, and which it knows.
 */
function banner(app: LoadedApp, worker: Worker): Record<string, unknown> {
  const { broker, backend, prefix } = app.options;
  const fields: Record<string, unknown> = { broker: redact(broker) };
  if (typeof backend === 'string' && backend !== broker) fields.backend = redact(backend);
  const { queues, pool, concurrency, autoscale } = worker.options;
  const metrics = worker.metricsUrl === undefined ? {} : { metrics: worker.metricsUrl };
  const scaling = autoscale === undefined ? {} : { autoscale: { min: autoscale.min, max: autoscale.max } };
  return {
    ...fields,
    prefix,
    queues,
    pool,
    concurrency,
    ...scaling,
    ...metrics,
    tasks: runtimeOf(app).registry.names(),
  };
}
