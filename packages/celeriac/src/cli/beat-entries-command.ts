/** `celeriac beat list | add | remove`: the app's periodic entries, and changes to the runtime ones. */
import { at, crontab, every, type BeatEntryInfo, type Schedule } from '@celeriac/beat';
import { CeleriacError, type BeatTaskOptions, type CatchUpPolicy } from '@celeriac/core';
import { unregisteredTask } from './task-names';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadBeatAppOrExit, type BeatApp } from './beat-app';
import { createLogger } from './logger';
import { duration, wholeNumber } from './parse';
import { formatTable } from './table';
import { withApp } from './with-app';
import { appOption } from './app-option';

interface ListFlags {
  app: string;
  json?: boolean;
}

interface AddFlags {
  app: string;
  task: string;
  cron?: string;
  tz?: string;
  every?: number;
  at?: string;
  args: unknown[];
  queue?: string;
  priority?: number;
  expires?: number;
  catchUp?: CatchUpPolicy;
  force?: boolean;
}

/** `celeriac beat list`. */
export function listEntriesCommand(): Command {
  return new Command('list')
    .description(
      'List the entries (in code and added at run time) with their last and next slots, and the leading scheduler.',
    )
    .addOption(appOption())
    .option('--json', 'print JSON instead of a table')
    .action((flags: ListFlags) =>
      withBeatApp(flags.app, async (app) => {
        const [entries, leader] = await Promise.all([app.beat.list(), app.beat.leader()]);
        if (flags.json) {
          console.log(JSON.stringify({ leader: leader ?? null, entries }, null, 2));
        } else {
          console.log(table(entries));
          console.log(
            leader
              ? `Leader: ${leader.owner} (lease ${(leader.ttl / 1000).toFixed(1)} s left)`
              : 'Leader: none (no scheduler runs)',
          );
        }
      }),
    );
}

/** `celeriac beat add`. */
export function addEntryCommand(): Command {
  return new Command('add')
    .description(
      'Add a runtime entry, or replace the runtime entry of that name; running schedulers pick it up at once.',
    )
    .argument('<name>', "the entry's name")
    .addOption(appOption())
    .requiredOption('--task <name>', 'the task to send')
    .option('--cron <expression>', 'a cron expression (5 fields, or 6 with seconds first)')
    .option('--tz <zone>', 'the time zone of --cron (IANA name, default UTC)')
    .option('--every <duration>', 'an interval, e.g. 30s, 5m', duration)
    .option('--at <date>', 'a one-off time (ISO 8601, e.g. 2030-01-01T09:00:00Z)')
    .option('--args <json>', "the task's arguments as a JSON array", jsonArray, [])
    .option('--queue <name>', 'the queue to send to')
    .option('--priority <n>', 'priority 0-255', wholeNumber)
    .option('--expires <duration>', 'do not run a firing that waited longer than this', duration)
    .addOption(
      new Option('--catch-up <policy>', 'slots missed while no scheduler ran').choices(['skip', 'once', 'all']),
    )
    .option('--force', "add it even though the app of -A does not register the task (only the workers' app does)")
    .action((name: string, flags: AddFlags) =>
      withBeatApp(flags.app, async (app) => {
        if (!flags.force) assertRegistered(app, flags);
        const options: BeatTaskOptions = {};
        if (flags.queue !== undefined) options.queue = flags.queue;
        if (flags.priority !== undefined) options.priority = flags.priority;
        if (flags.expires !== undefined) options.expires = flags.expires;
        await app.beat.add(name, {
          task: flags.task,
          schedule: scheduleOf(flags),
          args: flags.args,
          options,
          catchUp: flags.catchUp,
        });
        console.log(`Added ${name}`);
      }),
    );
}

/** `celeriac beat remove`. */
export function removeEntryCommand(): Command {
  return new Command('remove')
    .description('Remove a runtime entry; exits 1 when there is none of that name.')
    .argument('<name>', "the entry's name")
    .addOption(appOption())
    .action((name: string, flags: { app: string }) =>
      withBeatApp(flags.app, async (app) => {
        if (await app.beat.remove(name)) {
          console.log(`Removed ${name}`);
        } else {
          console.error(`No runtime entry named ${name}`);
          process.exitCode = 1;
        }
      }),
    );
}

/** Loads the beat app of `-A` and runs `work` on it (see with-app.ts). */
function withBeatApp(specifier: string, work: (app: BeatApp) => Promise<void>): Promise<void> {
  return withApp(loadBeatAppOrExit(specifier, createLogger({ level: 'warn', json: false, name: 'beat' })), work);
}

/** A mistyped task name would be fired for ever and dead-lettered by every worker: refuse it up front. */
function assertRegistered(app: BeatApp, flags: AddFlags): void {
  const unknown = unregisteredTask(app, flags.app, flags.task);
  if (unknown === undefined) return;
  throw new CeleriacError(
    'CELERIAC_UNKNOWN_TASK',
    `${unknown} Check the name, or pass --force when only the workers' app registers it.`,
  );
}

function scheduleOf(flags: AddFlags): Schedule {
  const given = [flags.cron, flags.every, flags.at].filter((value) => value !== undefined).length;
  if (given !== 1) throw new InvalidArgumentError('Give exactly one of --cron, --every or --at.');
  if (flags.tz !== undefined && flags.cron === undefined) throw new InvalidArgumentError('--tz goes with --cron.');
  if (flags.cron !== undefined) return crontab(flags.cron, { tz: flags.tz });
  if (flags.every !== undefined) return every(flags.every);
  return at(flags.at as string);
}

function jsonArray(value: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('Expected a JSON array, e.g. \'["feed", 3]\'.');
  }
  if (!Array.isArray(parsed)) throw new InvalidArgumentError('Expected a JSON array, e.g. \'["feed", 3]\'.');
  return parsed;
}

function table(entries: readonly BeatEntryInfo[]): string {
  if (entries.length === 0) return 'No periodic entries.';
  const time = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString());
  return formatTable(
    ['NAME', 'TASK', 'SCHEDULE', 'SOURCE', 'LAST', 'NEXT'],
    entries.map((entry) => [
      entry.name,
      entry.task,
      entry.description,
      entry.source,
      time(entry.lastFired),
      time(entry.next),
    ]),
  );
}
