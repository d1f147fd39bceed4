/**
 * `celeriac result`, `celeriac revoke` and `celeriac call`: read a task's outcome, revoke tasks, and
 * send a task by name. Celeriac tasks take positional arguments: `--kwargs` is passed as one more,
 * trailing argument (an object), for tasks written to take an options object last.
 */
import type { TaskRecord, TerminateSignal } from '@celeriac/core';
import { plainJson, showValue } from '@celeriac/core/internal';
import type { LoadedApp } from '@celeriac/worker/internal';
import { Command, Option } from 'commander';
import { jsonFlag, withOpsApp, withOpsOptions, type OpsFlags } from './ops-app';
import { unregisteredTask } from './task-names';

interface ResultFlags extends OpsFlags {
  wait?: boolean;
}

interface RevokeFlags extends OpsFlags {
  terminate?: boolean;
  signal?: TerminateSignal;
}

interface CallFlags extends ResultFlags {
  args?: string;
  kwargs?: string;
  options?: string;
  force?: boolean;
}

/** `celeriac result ID`. */
export function resultCommand(): Command {
  return withOpsOptions(new Command('result'), 'with --wait: how long to wait for the outcome')
    .description('Print the state and outcome of a task (PENDING when unknown or expired).')
    .argument('<id>', 'the task id')
    .option('--wait', 'wait until the task has finished')
    .action((id: string, flags: ResultFlags) => withOpsApp(flags, 'result', (app) => printOutcome(app, id, flags)));
}

/** `celeriac revoke ID...`. */
export function revokeCommand(): Command {
  return withOpsOptions(new Command('revoke'))
    .description(
      'Revoke tasks: waiting copies are removed and no worker runs them; with --terminate a running copy is stopped.',
    )
    .argument('<ids...>', 'task ids')
    .option('--terminate', 'also stop the task if it runs')
    .addOption(
      new Option('--signal <signal>', 'with --terminate: the signal for a pool child still running it').choices([
        'SIGTERM',
        'SIGKILL',
      ]),
    )
    .action((ids: string[], flags: RevokeFlags) =>
      withOpsApp(flags, 'revoke', async (app) => {
        for (const id of ids)
          await app.revoke(id, {
            terminate: flags.terminate === true,
            ...(flags.signal ? { signal: flags.signal } : {}),
          });
        if (flags.json) return console.log(JSON.stringify({ revoked: ids, terminate: flags.terminate === true }));
        console.log(`Revoked ${ids.length} task(s)${flags.terminate ? ' (terminate)' : ''}: ${ids.join(', ')}`);
      }),
    );
}

/** `celeriac call TASK`. */
export function callCommand(): Command {
  return withOpsOptions(new Command('call'), 'with --wait: how long to wait for the result')
    .description('Send a task by name and print its id (with --wait, its result).')
    .argument('<task>', 'the registered task name')
    .option('--args <json>', 'the arguments, a JSON array', '[]')
    .option('--kwargs <json>', 'a JSON object passed as one more, last argument (tasks are positional)')
    .option('--options <json>', 'apply options as JSON, e.g. {"queue":"fast","countdown":"10s"}')
    .option('--wait', 'wait for the outcome and print it')
    .option('--force', "send without the warning about a name this app does not register (the workers' app does)")
    .action((task: string, flags: CallFlags) =>
      withOpsApp(flags, 'call', async (app) => {
        // A mistyped name would be dead-lettered by every worker: say so, and send anyway (their app may know it).
        const unknown = flags.force ? undefined : unregisteredTask(app, flags.app, task);
        if (unknown !== undefined)
          console.error(
            `warning: ${unknown} Sending it anyway: a worker that does not register it dead-letters it. Check ` +
              "the name, or pass --force when only the workers' app registers it.",
          );
        const args = jsonFlag(flags.args, '--args');
        if (!Array.isArray(args)) throw new Error(`--args must be a JSON array, e.g. --args '[1, 2]'.`);
        const positional: unknown[] = args;
        const kwargs = jsonFlag(flags.kwargs, '--kwargs');
        if (kwargs !== undefined && (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs)))
          throw new Error(`--kwargs must be a JSON object, e.g. --kwargs '{"retries": 2}'.`);
        const options = (jsonFlag(flags.options, '--options') ?? {}) as Record<string, unknown>;
        const result = app.sendTask(task, kwargs === undefined ? positional : [...positional, kwargs], options);
        await result.sent;
        if (!flags.wait) return console.log(flags.json ? JSON.stringify({ id: result.id, task }) : result.id);
        await printOutcome(app, result.id, flags);
      }),
    );
}

async function printOutcome(app: LoadedApp, id: string, flags: ResultFlags): Promise<void> {
  const handle = app.result(id);
  if (flags.wait) await handle.get({ timeout: flags.timeout, propagate: false });
  const record: TaskRecord = (await handle.record()) ?? { id, state: 'PENDING', date: 0 };
  if (record.state === 'FAILURE' || record.state === 'REVOKED') process.exitCode = 1;
  if (flags.json) return console.log(JSON.stringify(recordJson(record), null, 2));
  const line = [`${id}  ${record.state}`];
  if (record.task) line.push(`task: ${record.task}`);
  if (record.state === 'SUCCESS') line.push(`result: ${showValue(record.result)}`);
  if (record.error) line.push(`error: ${record.error.name}: ${record.error.message}`);
  if (record.state === 'REVOKED' && record.meta !== undefined) line.push(`reason: ${showValue(record.meta)}`);
  console.log(line.join('\n'));
}

/** A task record for `--json`: its result and metadata as plain JSON data (see `plainJson`). */
function recordJson(record: TaskRecord): unknown {
  return {
    ...record,
    ...(record.result === undefined ? {} : { result: plainJson(record.result) }),
    ...(record.meta === undefined ? {} : { meta: plainJson(record.meta) }),
  };
}
