/**
 * `celeriac inspect` and `celeriac control`: broadcast a request to the live workers (or the one
 * `--worker` names) and print what each answered within `--timeout`.
 */
import type { ControlOptions, ControlReply, HeldTask, InspectWhat, RateLimitSpec } from '@celeriac/core';
import type { LoadedApp } from '@celeriac/worker/internal';
import { Argument, Command } from 'commander';
import { ago, answered, byHost, withOpsApp, withOpsOptions, type OpsFlags } from './ops-app';
import { statsLines } from './stats-lines';
import { formatTable } from './table';

interface TargetFlags extends OpsFlags {
  worker?: string;
}

const INSPECT: readonly InspectWhat[] = ['active', 'reserved', 'scheduled', 'registered', 'stats'];
const CONTROL = [
  'ping',
  'shutdown',
  'pool-grow',
  'pool-shrink',
  'cancel-consumer',
  'add-consumer',
  'rate-limit',
  'enable-events',
  'disable-events',
] as const;
type ControlWhat = (typeof CONTROL)[number];

/** `celeriac inspect active|reserved|scheduled|registered|stats`. */
export function inspectCommand(): Command {
  return withTarget(new Command('inspect'))
    .description(
      'Ask live workers what they hold now: running (active), prefetched (reserved) or ETA (scheduled) tasks, task ' +
        'names (registered), counters (stats).',
    )
    .addArgument(new Argument('<what>', 'what to ask').choices(INSPECT))
    .action((what: InspectWhat, flags: TargetFlags) =>
      withOpsApp(flags, 'inspect', async (app) => {
        const replies = byHost(answered(await app.control.inspect(what, target(flags)), flags.timeout, flags.worker));
        if (flags.json) return console.log(JSON.stringify(asObject(replies), null, 2));
        for (const reply of replies) console.log(`${reply.hostname}:\n${indent(describe(what, reply))}`);
      }),
    );
}

/**
 * `celeriac control ping|shutdown|pool-grow N|pool-shrink N|cancel-consumer Q|add-consumer Q|enable-events|
 * disable-events` and
 * `celeriac control rate-limit TASK RATE|reset` (kept in the broker: every worker, no broadcast).
 */
export function controlCommand(): Command {
  return withTarget(new Command('control'))
    .description(
      'Steer live workers: ping, shutdown (graceful), pool-grow N / pool-shrink N (concurrency), add-consumer / ' +
        'cancel-consumer QUEUE, rate-limit TASK RATE (e.g. 50/s; reset goes back to the one in code), ' +
        'enable-events / disable-events (task and worker events, until the worker stops).',
    )
    .addArgument(new Argument('<command>', 'what to do').choices(CONTROL))
    .argument(
      '[argument]',
      'the count (pool-grow, pool-shrink), the queue (add-consumer, cancel-consumer) or the task (rate-limit)',
    )
    .argument('[rate]', "rate-limit only: the new rate, like '50/s', '10/m', '1000/h', or reset")
    .action((command: ControlWhat, argument: string | undefined, rate: string | undefined, flags: TargetFlags) =>
      withOpsApp(flags, 'control', async (app) => {
        if (command === 'rate-limit') return setRateLimit(app, argument, rate, flags.json === true);
        const replies = byHost(
          answered(await send(app, command, argument, target(flags)), flags.timeout, flags.worker),
        );
        if (flags.json) return console.log(JSON.stringify(asObject(replies), null, 2));
        for (const reply of replies) if (reply.ok) console.log(`${reply.hostname}: ${JSON.stringify(reply.value)}`);
      }),
    );
}

/** Sets (or with `reset`, clears) the rate limit of a task, and says so. */
async function setRateLimit(
  app: LoadedApp,
  task: string | undefined,
  rate: string | undefined,
  json: boolean,
): Promise<void> {
  if (!task || !rate)
    throw new Error(
      'control rate-limit needs a task and a rate, e.g. celeriac control rate-limit api.call 50/s -A app.',
    );
  await app.control.rateLimit(task, rate === 'reset' ? null : (rate as RateLimitSpec));
  const set = (await app.control.rateLimits())[task];
  if (json) return console.log(JSON.stringify({ task, rate: set ?? null }, null, 2));
  console.log(
    set
      ? `Rate limit of ${task}: ${set.limit} per ${set.per} ms, burst ${set.burst} ` +
          '(every worker, from its next reservation).'
      : `Rate limit of ${task}: back to the one it was registered with.`,
  );
}

function send(
  app: LoadedApp,
  command: ControlWhat,
  argument: string | undefined,
  options: ControlOptions,
): Promise<ControlReply[]> {
  const needs = (what: string): string => {
    if (argument === undefined || argument === '')
      throw new Error(
        `control ${command} needs ${what}, e.g. celeriac control ${command} ${what === 'a count' ? '2' : 'reports'} ` +
          `-A app.`,
      );
    return argument;
  };
  switch (command) {
    case 'ping':
      return app.control.ping(options);
    case 'shutdown':
      return app.control.shutdown(options);
    case 'pool-grow':
      return app.control.poolGrow(Number(needs('a count')), options);
    case 'pool-shrink':
      return app.control.poolShrink(Number(needs('a count')), options);
    case 'add-consumer':
      return app.control.addConsumer(needs('a queue'), options);
    case 'cancel-consumer':
      return app.control.cancelConsumer(needs('a queue'), options);
    case 'enable-events':
      return app.control.enableEvents(options);
    case 'disable-events':
      return app.control.disableEvents(options);
    case 'rate-limit':
      throw new Error('control rate-limit is not sent to workers');
  }
}

function withTarget(command: Command): Command {
  return withOpsOptions(command).option('--worker <hostname>', 'only this worker answers (see celeriac status)');
}

function target(flags: TargetFlags): ControlOptions {
  return { timeout: flags.timeout, ...(flags.worker === undefined ? {} : { destination: flags.worker }) };
}

/** `{ hostname: value }`, or `{ hostname: { error } }` for a refusal. */
function asObject(replies: ControlReply[]): Record<string, unknown> {
  return Object.fromEntries(replies.map((reply) => [reply.hostname, reply.ok ? reply.value : { error: reply.error }]));
}

function describe(what: InspectWhat, reply: ControlReply): string {
  if (!reply.ok) return `error: ${reply.error ?? 'failed'}`;
  if (what === 'registered') return (reply.value as string[]).join('\n') || '(no tasks)';
  if (what === 'stats') return statsLines(reply.value as Record<string, unknown>);
  const tasks = reply.value as HeldTask[];
  if (tasks.length === 0) return `(no ${what} tasks)`;
  const now = Date.now();
  // The pool child's pid, for workers whose pool has children (an inline worker runs tasks itself).
  const child = tasks.some((task) => task.childPid !== undefined);
  return formatTable(
    ['ID', 'TASK', 'QUEUE', 'ARGS', 'STARTED', ...(child ? ['CHILD'] : [])],
    tasks.map((task) => [
      task.id,
      task.name,
      task.queue,
      task.args,
      task.started === undefined ? '-' : `${ago(now - task.started)} ago`,
      ...(child ? [task.childPid === undefined ? '-' : String(task.childPid)] : []),
    ]),
  );
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
