/**
 * `celeriac dead list | requeue | discard`: the dead letters of a queue (tasks lost too often, or
 * that no worker could run), for operators. Requeueing or discarding many needs `--all`, so that a
 * missing id never turns into "every dead letter".
 */
import type { DeadLetter } from '@celeriac/core';
import { runtimeOf } from '@celeriac/core/internal';
import type { LoadedApp } from '@celeriac/worker/internal';
import { Command } from 'commander';
import { loadAppOrExit } from './load';
import { createLogger } from './logger';
import { wholeNumber } from './parse';
import { formatTable } from './table';
import { withApp } from './with-app';

interface QueueFlags {
  app: string;
  queue: string;
}

interface ListFlags extends QueueFlags {
  offset: number;
  limit: number;
  json?: boolean;
}

interface ChangeFlags extends QueueFlags {
  all?: boolean;
}

/** `celeriac dead`, with its three subcommands. */
export function deadCommand(): Command {
  return new Command('dead')
    .description('Inspect, requeue or discard the dead letters of a queue.')
    .addCommand(listCommand())
    .addCommand(
      changeCommand(
        'requeue',
        'Put dead letters back into their queue with a fresh delivery count.',
        (app, queue, ids) => app.broker.requeueDead(queue, ids),
        'Requeued',
      ),
    )
    .addCommand(
      changeCommand(
        'discard',
        'Delete dead letters for good.',
        (app, queue, ids) => app.broker.discardDead(queue, ids),
        'Discarded',
      ),
    );
}

function listCommand(): Command {
  return withQueueOptions(new Command('list'))
    .description('List the dead letters of a queue, oldest first: id, task, when, and why.')
    .option('--offset <n>', 'skip this many', wholeNumber, 0)
    .option('--limit <n>', 'show at most this many', wholeNumber, 100)
    .option('--json', 'print JSON instead of a table')
    .action((flags: ListFlags) =>
      withDeadApp(flags.app, async (app) => {
        const letters = await app.broker.listDead(flags.queue, { offset: flags.offset, limit: flags.limit });
        const rows = letters.map((letter) => ({
          id: letter.id,
          task: taskOf(app, letter),
          at: new Date(letter.at).toISOString(),
          reason: letter.reason,
        }));
        if (flags.json) console.log(JSON.stringify(rows, null, 2));
        else if (rows.length === 0) console.log(`No dead letters in ${flags.queue}.`);
        else
          console.log(
            formatTable(
              ['ID', 'TASK', 'DEAD SINCE', 'REASON'],
              rows.map((row) => [row.id, row.task, row.at, row.reason]),
            ),
          );
      }),
    );
}

function changeCommand(
  name: string,
  description: string,
  change: (app: LoadedApp, queue: string, ids: string[] | undefined) => Promise<number>,
  done: string,
): Command {
  return withQueueOptions(new Command(name))
    .description(`${description} Give ids, or --all for every dead letter of the queue.`)
    .argument('[ids...]', 'ids of dead letters (see `celeriac dead list`)')
    .option('--all', 'every dead letter of the queue')
    .action((ids: string[], flags: ChangeFlags) =>
      withDeadApp(flags.app, async (app) => {
        if (Boolean(flags.all) === ids.length > 0) throw new Error(`Give the ids to ${name}, or --all (not both).`);
        const count = await change(app, flags.queue, flags.all ? undefined : ids);
        console.log(`${done} ${count} dead letter(s) of ${flags.queue}.`);
        // Ids that were not dead letters (mistyped, or already handled) are worth knowing about.
        if (!flags.all && count < ids.length) {
          console.error(`${ids.length - count} of the ids given were not dead letters of ${flags.queue}.`);
          process.exitCode = 1;
        }
      }),
    );
}

function withQueueOptions(command: Command): Command {
  return command
    .requiredOption('-A, --app <module>', 'the module that creates and exports the app')
    .option('-Q, --queue <name>', 'the queue', 'default');
}

/** Loads the app of `-A` (exit code 2 when it cannot) and runs `work` on it. */
function withDeadApp(specifier: string, work: (app: LoadedApp) => Promise<void>): Promise<void> {
  return withApp(loadAppOrExit(specifier, createLogger({ level: 'warn', json: false, name: 'dead' })), work);
}

/** The task a dead letter would run, or `?` when its message does not decode. */
function taskOf(app: LoadedApp, letter: DeadLetter): string {
  return runtimeOf(app).decodeOrUndefined(letter.body)?.task ?? '?';
}
