/**
 * `celeriac queue list|pause|resume|purge`: a paused queue keeps accepting tasks, but no worker
 * reserves from it until it is resumed (the mark is kept in the broker and survives restarts).
 */
import { Command } from 'commander';
import { withOpsApp, withOpsOptions, type OpsFlags } from './ops-app';
import { formatQueueTable } from './queue-table';

interface PurgeFlags extends OpsFlags {
  yes?: boolean;
}

/** `celeriac queue`, with its subcommands. */
export function queueCommand(): Command {
  return new Command('queue')
    .description('List, pause, resume or purge queues.')
    .addCommand(
      withOpsOptions(new Command('list'))
        .description(
          'Every queue with its ready, scheduled (delayed), active (leased) and dead counts, and whether it is paused.',
        )
        .action((flags: OpsFlags) =>
          withOpsApp(flags, 'queue', async (app) => {
            const queues = await app.queues.list();
            if (flags.json) return console.log(JSON.stringify(queues, null, 2));
            console.log(formatQueueTable(queues));
          }),
        ),
    )
    .addCommand(toggle('pause', 'Stop workers reserving from a queue; tasks sent to it wait until resume.', 'Paused'))
    .addCommand(toggle('resume', 'Let workers reserve from a paused queue again.', 'Resumed'))
    .addCommand(
      withOpsOptions(new Command('purge'))
        .description(
          'Remove every waiting and delayed task of a queue (running ones finish); each is recorded as REVOKED ' +
            '(purged).',
        )
        .argument('<queue>', 'the queue')
        .option('--yes', 'really purge (required)')
        .action((queue: string, flags: PurgeFlags) =>
          withOpsApp(flags, 'queue', async (app) => {
            if (!flags.yes)
              throw new Error(`Purging deletes every waiting task of ${queue}; run again with --yes to do it.`);
            const removed = await app.queues.purge(queue);
            if (flags.json) return console.log(JSON.stringify({ queue, removed }));
            console.log(`Purged ${removed} task(s) from ${queue}.`);
          }),
        ),
    );
}

function toggle(name: 'pause' | 'resume', description: string, done: string): Command {
  return withOpsOptions(new Command(name))
    .description(description)
    .argument('<queue>', 'the queue')
    .action((queue: string, flags: OpsFlags) =>
      withOpsApp(flags, 'queue', async (app) => {
        await (name === 'pause' ? app.queues.pause(queue) : app.queues.resume(queue));
        if (flags.json) return console.log(JSON.stringify({ queue, paused: name === 'pause' }));
        console.log(`${done} ${queue}.`);
      }),
    );
}
