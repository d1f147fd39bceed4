/**
 * `celeriac failed list | show | retry | discard`: the failed-task registry (tasks that raised after
 * their retries), for operators. Retrying or discarding many needs `--all`, so that a missing id
 * never turns into "every failed task".
 */
import type { FailedTask } from '@celeriac/core';
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

interface AppFlags extends RegistryFlags {
  queue?: string;
  json?: boolean;
}

interface ListFlags extends AppFlags {
  offset: number;
  limit: number;
}

type FailedChangeFlags = AppFlags & ChangeFlags;

/** `celeriac failed`, with its four subcommands. */
export function failedCommand(): Command {
  return new Command('failed')
    .description('List, show, retry or discard tasks that failed for good (after their retries).')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(
      failedChange(
        'retry',
        'Send failed tasks again, under the same id, with their retry count reset.',
        async (app, ids, queue) => (await app.failed.retry(ids, { queue })).length,
        'Retried',
      ),
    )
    .addCommand(
      failedChange(
        'discard',
        'Remove failed tasks from the registry for good.',
        (app, ids, queue) => app.failed.discard(ids, { queue }),
        'Discarded',
      ),
    );
}

function listCommand(): Command {
  return pagingOptions(withAppOptions(new Command('list')))
    .description('List failed tasks, newest first: id, queue, task, attempts, when, and the error.')
    .action((flags: ListFlags) =>
      withRegistryApp('failed', flags.app, async (app) => {
        const tasks = await app.failed.list({ ...queueOf(flags), offset: flags.offset, limit: flags.limit });
        if (flags.json)
          return console.log(
            JSON.stringify(
              tasks.map((task) => summary(task)),
              null,
              2,
            ),
          );
        if (tasks.length === 0) return console.log(`No failed tasks${flags.queue ? ` in ${flags.queue}` : ''}.`);
        const rows = tasks.map((task) => [
          task.id,
          task.queue,
          task.task,
          String(task.attempts),
          new Date(task.at).toISOString(),
          `${task.error.name}: ${firstLine(task.error.message)}`,
        ]);
        console.log(formatTable(['ID', 'QUEUE', 'TASK', 'ATTEMPTS', 'FAILED AT', 'ERROR'], rows));
      }),
    );
}

function showCommand(): Command {
  return withAppOptions(new Command('show'))
    .description('Show one failed task: its message, error and traceback.')
    .argument('<id>', 'the task id (see `celeriac failed list`)')
    .action((id: string, flags: AppFlags) =>
      withRegistryApp('failed', flags.app, async (app) => {
        const task = await app.failed.show(id, queueOf(flags));
        if (!task)
          throw new Error(
            `No failed task ${id}${flags.queue ? ` in ${flags.queue}` : ''} (it may have been retried, discarded, or ` +
              `kept past failedTtl).`,
          );
        const message = runtimeOf(app).decodeOrUndefined(task.body);
        const details = { ...summary(task), args: message?.args, retries: message?.retries, stack: task.error.stack };
        if (flags.json) return console.log(JSON.stringify(details, null, 2));
        console.log(
          [
            `id:        ${task.id}`,
            `task:      ${task.task}`,
            `queue:     ${task.queue}`,
            `attempts:  ${task.attempts}`,
            `failed at: ${new Date(task.at).toISOString()}`,
            `args:      ${message ? JSON.stringify(message.args) : '(undecodable message)'}`,
            `error:     ${task.error.name}: ${task.error.message}`,
            ...(task.error.stack ? ['', task.error.stack] : []),
          ].join('\n'),
        );
      }),
    );
}

function failedChange(
  name: string,
  description: string,
  change: (app: LoadedApp, ids: string[] | 'all', queue: string | undefined) => Promise<number>,
  done: string,
): Command {
  return changeCommand<FailedChangeFlags>(withAppOptions(new Command(name)), {
    registry: 'failed',
    description: `${description} Give ids, or --all (with -Q, every one of that queue).`,
    idsHelp: 'task ids (see `celeriac failed list`)',
    allHelp: 'every failed task (of the queue, with -Q)',
    change: (app, ids, flags) => change(app, ids, flags.queue),
    report: (count, flags) => {
      if (flags.json) console.log(JSON.stringify({ [name === 'retry' ? 'retried' : 'discarded']: count }));
      else console.log(`${done} ${count} failed task(s).`);
    },
    missing: (missing, flags) =>
      `${missing} of the ids given were not in the failed-task registry${flags.queue ? ` of ${flags.queue}` : ''}.`,
  });
}

function withAppOptions(command: Command): Command {
  return command
    .addOption(appOption())
    .option('-Q, --queue <name>', 'only this queue (default: every queue)')
    .option('--json', 'print JSON');
}

function queueOf(flags: AppFlags): { queue?: string } {
  return flags.queue === undefined ? {} : { queue: flags.queue };
}

function summary(task: FailedTask): object {
  return {
    id: task.id,
    queue: task.queue,
    task: task.task,
    attempts: task.attempts,
    at: new Date(task.at).toISOString(),
    error: { name: task.error.name, message: task.error.message },
  };
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
