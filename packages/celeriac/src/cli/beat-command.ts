/**
 * `celeriac beat`: fires the app module's periodic tasks. Run two or more on one Redis: one leads
 * (holds the lease) and fires, the others stand by and take over within the lease when it dies.
 * SIGTERM/SIGINT give the lease up and exit 0. `list`, `add` and `remove` manage runtime entries.
 */
import { Command, Option } from 'commander';
import { loadBeatAppOrExit } from './beat-app';
import { addEntryCommand, listEntriesCommand, removeEntryCommand } from './beat-entries-command';
import { createLogger, type LogLevel } from './logger';
import { logLevelOption } from './log-level-option';
import { assertCrossProcessBroker } from './cross-process-broker';
import { duration } from './parse';
import { closeAndExit, onStopSignals, startOrExit } from './lifecycle';
import { appOption } from './app-option';

interface BeatFlags {
  app: string;
  lease: number;
  id?: string;
  loglevel: LogLevel;
  jsonLogs?: boolean;
}

/** Adds the `beat` command (and its subcommands) to the program. */
export function beatCommand(): Command {
  return new Command('beat')
    .description(
      "Fire the app's periodic tasks (run two or more for high availability), or list, add and remove entries at run " +
        'time.',
    )
    .addCommand(runCommand(), { isDefault: true })
    .addCommand(listEntriesCommand())
    .addCommand(addEntryCommand())
    .addCommand(removeEntryCommand());
}

function runCommand(): Command {
  return new Command('run')
    .description(
      'Fire the periodic tasks until stopped (the default: `celeriac beat -A ./dist/tasks.js`); SIGTERM/SIGINT give ' +
        'the lease up.',
    )
    .addOption(appOption('the module that creates and exports the app and its schedule'))
    .addOption(
      new Option('--lease <duration>', 'leader lease: a standby takes over at most this long after the leader died')
        .argParser(duration)
        .default(10_000, '10s'),
    )
    .option('--id <name>', "this scheduler's name in the lease and logs (default: host:pid:random)")
    .addOption(logLevelOption())
    .option('--json-logs', 'log JSON lines instead of readable text')
    .action((flags: BeatFlags) => runBeat(flags));
}

async function runBeat(flags: BeatFlags): Promise<void> {
  const logger = createLogger({ level: flags.loglevel, json: flags.jsonLogs === true, name: 'beat' });
  const app = await loadBeatAppOrExit(flags.app, logger);
  let scheduler;
  try {
    scheduler = app.beat.scheduler({ lease: flags.lease, id: flags.id, logger });
  } catch (error) {
    logger.fatal({ error: String(error) }, (error as Error).message);
    process.exit(1);
  }
  onStopSignals(
    logger,
    (signal) => {
      logger.info({ signal }, `Received ${signal}: giving the lease up and exiting`);
      void closeAndExit(logger, 'Beat', () => app.close()); // closes the scheduler first, which releases its lease
    },
    (signal) => {
      logger.warn({ signal }, `Received ${signal} again: exiting now`);
      process.exit(0);
    },
  );
  await startOrExit(logger, app, 'scheduler', async () => {
    assertCrossProcessBroker(app, 'beat');
    await scheduler.start();
  });
  const entries = app.beat.entriesInCode().length;
  logger.info(
    { scheduler: scheduler.id, state: scheduler.state, lease: flags.lease, entriesInCode: entries },
    `Beat ${scheduler.id} ready`,
  );
}
