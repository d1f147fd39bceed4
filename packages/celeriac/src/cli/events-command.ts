/**
 * `celeriac events`: tails the app's event log, one line per event (coloured on a terminal, JSON
 * lines with `--json`), from now or from `--since`, until interrupted (or caught up, with `--no-follow`).
 */
import { EVENT_TYPES, type CeleriacEventType, type Codec, type StoredEvent } from '@celeriac/core';
import { plainJson, readPayload, runtimeOf, showValue } from '@celeriac/core/internal';
import { Command, InvalidArgumentError } from 'commander';
import { loadAppOrExit } from './load';
import { createLogger } from './logger';
import { withApp } from './with-app';
import { appOption } from './app-option';

interface EventsFlags {
  app: string;
  since?: string;
  type?: CeleriacEventType[];
  task?: string;
  json?: boolean;
  follow: boolean;
}

/** `celeriac events`. */
export function eventsCommand(): Command {
  return new Command('events')
    .description('Tail the event log: every task state change and worker heartbeat, one line each.')
    .addOption(appOption())
    .option('--since <when>', 'start this long ago (10m, 1h) or after this event id; default: from now')
    .option('--type <types>', `only these event types, comma-separated (${EVENT_TYPES.join(', ')})`, eventTypes)
    .option('--task <id>', 'only the events of this task')
    .option('--json', 'print each event as a JSON line')
    .option('--no-follow', 'exit once the events so far are printed, instead of waiting for more')
    .action((flags: EventsFlags) =>
      withApp(loadAppOrExit(flags.app, createLogger({ level: 'warn', json: false, name: 'events' })), async (app) => {
        const controller = new AbortController();
        const stop = () => controller.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        // Reads once first, so an unreachable broker fails now with a clear message (exit 1).
        await app.events.recent({ limit: 1 });
        if (!app.options.events.enabled) process.stderr.write(eventsOffNotice(flags.app));
        const colour = !flags.json && process.stdout.isTTY === true;
        const { codec } = runtimeOf(app);
        try {
          const filter = {
            ...(flags.type ? { type: flags.type } : {}),
            ...(flags.task !== undefined ? { task: flags.task } : {}),
          };
          for await (const event of app.events.stream({
            ...filter,
            ...(flags.since !== undefined ? { since: flags.since } : {}),
            signal: controller.signal,
            follow: flags.follow,
          })) {
            process.stdout.write(`${flags.json ? eventJson(event, codec) : formatEvent(event, colour, codec)}\n`);
          }
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      }),
    );
}

/**
 * What stderr says when the app leaves events off (the dashboard's overview says it too): the log
 * stays empty unless some worker emits them anyway, and how to turn them on.
 */
function eventsOffNotice(module: string): string {
  return (
    `Events are off for this app (\`events: true\` is not set in ${module}), so workers and senders write no events ` +
    'and nothing shows here. Turn them on with `events: true` in the app module the workers and senders load; ' +
    `for the tasks of one worker, start it with \`celeriac worker -E\`; for live workers, without a restart, run ` +
    `\`celeriac control enable-events -A ${module}\`.\n`
  );
}

function eventTypes(value: string): CeleriacEventType[] {
  const types = value
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type.length > 0);
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`Unknown event type ${unknown.join(', ')}; expected ${EVENT_TYPES.join(', ')}.`);
  return types as CeleriacEventType[];
}

const COLOURS: Partial<Record<CeleriacEventType, number>> = {
  'task-succeeded': 32,
  'task-failed': 31,
  'task-rejected': 31,
  'task-retried': 33,
  'task-revoked': 35,
  'task-expired': 35,
  'task-started': 36,
  'worker-online': 34,
  'worker-offline': 34,
};

/** One line: time, type, then what the event is about. */
export function formatEvent(event: StoredEvent, colour: boolean, codec: Codec): string {
  const time = new Date(event.timestamp).toISOString();
  const code = COLOURS[event.type];
  const type = event.type.padEnd(16);
  const show = (text: string) => showValue(readPayload(codec, text));
  return `${time} ${colour && code ? `\u001b[${code}m${type}\u001b[0m` : type} ${describe(event, show)}`;
}

/**
 * One event as a JSON line, its arguments and result as the user passed them (plain JSON data: see
 * `plainJson`), not in the codec's wire form.
 */
export function eventJson(event: StoredEvent, codec: Codec): string {
  const shown: Record<string, unknown> = { ...event };
  for (const field of ['args', 'result'] as const) {
    const text = shown[field];
    if (typeof text === 'string') shown[field] = plainJson(readPayload(codec, text));
  }
  return JSON.stringify(shown);
}

/** How an event line shows a payload (an event's encoded arguments or result). */
type ShowPayload = (text: string) => string;

function describe(event: StoredEvent, show: ShowPayload): string {
  const where = event.hostname ? ` on ${event.hostname}` : '';
  switch (event.type) {
    case 'worker-online':
      return (
        `${event.hostname} pid=${event.pid} pool=${event.pool} concurrency=${event.concurrency} ` +
        `queues=${event.queues.join(',')}`
      );
    case 'worker-heartbeat':
      return (
        `${event.hostname} pid=${event.pid} active=${event.active}` +
        `${event.busy === undefined ? '' : ` running=${event.busy}`} processed=${event.processed} ` +
        `load=${event.load.map((n) => n.toFixed(2)).join(',')} rss=${Math.round(event.rss / 1_048_576)}MiB`
      );
    case 'worker-offline':
      return `${event.hostname} pid=${event.pid} processed=${event.processed}`;
    default: {
      const head = `${event.task ?? '?'}[${event.taskId}] queue=${event.queue}${where}`;
      switch (event.type) {
        case 'task-succeeded':
          return `${head} runtime=${event.runtime}ms${optional('result', event.result, show)}`;
        case 'task-failed':
          return (
            `${head}${event.runtime !== undefined ? ` runtime=${event.runtime}ms` : ''} ${event.error.name}: ` +
            `${event.error.message}`
          );
        case 'task-retried':
          return (
            `${head} retry ${(event.retries ?? 0) + 1} in ${event.delay}ms ${event.error.name}: ` +
            `${event.error.message}`
          );
        case 'task-revoked':
        case 'task-rejected':
          return `${head} reason=${event.reason}`;
        case 'task-progress':
          return `${head} state=${event.state}`;
        case 'task-received':
          return `${head} delivery=${event.delivery}`;
        case 'task-sent':
        case 'task-started':
          return `${head}${optional('args', event.args, show)}`;
        default:
          return head;
      }
    }
  }
}

/** ` name=<shown value>`, or nothing when the event has no such payload. */
function optional(name: string, text: string | undefined, show: ShowPayload): string {
  return text === undefined ? '' : ` ${name}=${show(text)}`;
}
