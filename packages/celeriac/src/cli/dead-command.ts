/**
 * `celeriac dead list | requeue | discard`: the dead letters of a queue (tasks lost too often, or
 * that no worker could run), for operators. Requeueing or discarding many needs `--all`, so that a
 * missing id never turns into "every dead letter".
 */
import type { DeadLetter } from '@celeriac/core';
import { runtimeOf } from '@celeriac/core/internal';
import type { LoadedApp } from '@celeriac/worker/internal';
import { Command } from 'commander';
import {
  changeCommand,
  pagingOptions,
  withRegistryApp,
  type ChangeFlags,
  type RegistryFlags,
} from './registry-command';
import { formatTable } from './table';
import { appOption } from './app-option';

interface QueueFlags extends RegistryFlags {
  queue: string;
}

interface ListFlags extends QueueFlags {
  offset: number;
  limit: number;
  json?: boolean;
}

type DeadChangeFlags = QueueFlags & ChangeFlags;

/** `celeriac dead`, with its three subcommands. */
export function deadCommand(): Command {
  return new Command('dead')
    .description('Inspect, requeue or discard the dead letters of a queue.')
    .addCommand(listCommand())
    .addCommand(
      deadChange(
        'requeue',
        'Put dead letters back into their queue with a fresh delivery count.',
        (app, queue, ids) => app.broker.requeueDead(queue, ids),
        'Requeued',
      ),
    )
    .addCommand(
      deadChange(
        'discard',
        'Delete dead letters for good.',
        (app, queue, ids) => app.broker.discardDead(queue, ids),
        'Discarded',
      ),
    );
}

function listCommand(): Command {
  return pagingOptions(withQueueOptions(new Command('list')))
    .description('List the dead letters of a queue, oldest first: id, task, when, and why.')
    .option('--json', 'print JSON instead of a table')
    .action((flags: ListFlags) =>
      withRegistryApp('dead', flags.app, async (app) => {
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

function deadChange(
  name: string,
  description: string,
  change: (app: LoadedApp, queue: string, ids: string[] | undefined) => Promise<number>,
  done: string,
): Command {
  return changeCommand<DeadChangeFlags>(withQueueOptions(new Command(name)), {
    registry: 'dead',
    description: `${description} Give ids, or --all for every dead letter of the queue.`,
    idsHelp: 'ids of dead letters (see `celeriac dead list`)',
    allHelp: 'every dead letter of the queue',
    change: (app, ids, flags) => change(app, flags.queue, ids === 'all' ? undefined : ids),
    report: (count, flags) => console.log(`${done} ${count} dead letter(s) of ${flags.queue}.`),
    missing: (missing, flags) => `${missing} of the ids given were not dead letters of ${flags.queue}.`,
  });
}

function withQueueOptions(command: Command): Command {
  return command.addOption(appOption()).option('-Q, --queue <name>', 'the queue', 'default');
}

/** The task a dead letter would run, or `?` when its message does not decode. */
function taskOf(app: LoadedApp, letter: DeadLetter): string {
  return runtimeOf(app).decodeOrUndefined(letter.body)?.task ?? '?';
}
