/**
 * Celery's remote control, answered by Celeriac workers. `celery inspect ping|active|reserved|
 * scheduled|registered|stats|active_queues` and `celery control shutdown|pool_grow|pool_shrink|
 * add_consumer|cancel_consumer`, sent from Python on the `celery.pidbox` fanout exchange, become the
 * Celeriac control requests a worker answers already (worker-control.ts); each answer is turned
 * into the value a Celery worker gives and sent back as kombu's Mailbox collects it: `{ hostname:
 * value }` on the reply exchange, with the request's `ticket` header.
 */
import type { ControlCommand, ControlReply, ControlRequest, HeldTask } from '@celeriac/core';

/** Where the sender of a command collects replies. */
export interface MailboxReplyTo {
  /** The reply exchange (`reply.celery.pidbox`), a direct exchange. */
  readonly exchange: string;
  /** The routing key of the sender's reply queue. */
  readonly routingKey: string;
  /** The request's ticket: the sender keeps only replies that carry it. */
  readonly ticket: string;
}

/** A Celery control command, as the Celeriac request a worker answers. */
export interface CeleryControlCall {
  /** Celery's method name (`active_queues`, `pool_grow`, ...). */
  readonly method: string;
  readonly request: ControlRequest;
  /** Absent when the sender asked for no reply (`celery control shutdown`). */
  readonly replyTo?: MailboxReplyTo;
}

/** A command as kombu's Mailbox sends it. */
interface MailboxCommand {
  method?: unknown;
  arguments?: Record<string, unknown> | null;
  destination?: unknown;
  pattern?: unknown;
  ticket?: unknown;
  reply_to?: { exchange?: unknown; routing_key?: unknown } | null;
}

type Translate = (args: Record<string, unknown>) => { command: ControlCommand; argument?: string | number };

/** Celery's methods a Celeriac worker answers, and the Celeriac command each becomes. */
const METHODS: Readonly<Record<string, Translate>> = {
  ping: () => ({ command: 'ping' }),
  active: () => ({ command: 'active' }),
  reserved: () => ({ command: 'reserved' }),
  scheduled: () => ({ command: 'scheduled' }),
  registered: () => ({ command: 'registered' }),
  stats: () => ({ command: 'stats' }),
  // A worker's stats name its queues.
  active_queues: () => ({ command: 'stats' }),
  shutdown: () => ({ command: 'shutdown' }),
  pool_grow: (args) => ({ command: 'pool-grow', argument: Number(args.n ?? 1) }),
  pool_shrink: (args) => ({ command: 'pool-shrink', argument: Number(args.n ?? 1) }),
  add_consumer: (args) => ({ command: 'add-consumer', argument: queueArgument(args) }),
  cancel_consumer: (args) => ({ command: 'cancel-consumer', argument: queueArgument(args) }),
};

/** The queue a consumer command names; empty (refused by the worker) when it names none. */
function queueArgument(args: Record<string, unknown>): string {
  return typeof args.queue === 'string' ? args.queue : '';
}

/**
 * The Celeriac request in a pidbox command (the message's body, undefined when it was not JSON), or
 * undefined: for a method Celeriac does not answer (`revoke` is heard apart, see pidbox.ts), for
 * workers chosen by `pattern`, or for a body that is not a command.
 */
export function controlCallIn(body: unknown, id: () => string): CeleryControlCall | undefined {
  const command = body as MailboxCommand | undefined;
  if (!command || typeof command !== 'object' || typeof command.method !== 'string') return undefined;
  const translate = METHODS[command.method];
  if (!translate || command.pattern != null) return undefined;
  const args = command.arguments && typeof command.arguments === 'object' ? command.arguments : {};
  const destination = Array.isArray(command.destination)
    ? command.destination.filter((name): name is string => typeof name === 'string')
    : undefined;
  const request: ControlRequest = { id: id(), ...translate(args), ...(destination ? { destination } : {}) };
  const replyTo = command.reply_to;
  const routingKey = replyTo?.routing_key;
  const exchange = replyTo?.exchange;
  return {
    method: command.method,
    request,
    ...(typeof routingKey === 'string' && typeof exchange === 'string' && typeof command.ticket === 'string'
      ? { replyTo: { exchange, routingKey, ticket: command.ticket } }
      : {}),
  };
}

/** The stats a Celeriac worker answers (worker-control.ts), as far as they are read here. */
interface WorkerStats {
  pid?: number;
  pool?: string;
  concurrency?: number;
  queues?: string[];
  uptime?: number;
  processed?: number;
  rss?: number;
}

/** A worker's answer, in the shape a Celery worker gives for `method`. */
export function celeryReplyValue(call: CeleryControlCall, reply: ControlReply): unknown {
  if (!reply.ok) return { error: reply.error ?? 'failed' };
  const value = reply.value;
  switch (call.method) {
    case 'ping':
      return { ok: 'pong' };
    case 'active':
    case 'reserved':
      return (value as HeldTask[]).map((task) => requestInfo(task, reply.hostname));
    case 'stats':
      return celeryStats(value as WorkerStats);
    case 'active_queues':
      return ((value as WorkerStats).queues ?? []).map(queueInfo);
    case 'pool_grow':
      return { ok: 'pool will grow' };
    case 'pool_shrink':
      return { ok: 'pool will shrink' };
    case 'add_consumer':
      return { ok: `add consumer ${String(call.request.argument)}` };
    case 'cancel_consumer':
      return { ok: `no longer consuming from ${String(call.request.argument)}` };
    case 'shutdown':
      return { ok: 'shutdown signal sent' };
    default:
      // scheduled and registered: the same lists in both.
      return value;
  }
}

/** A held task as Celery's `Request.info()`. */
function requestInfo(task: HeldTask, hostname: string): Record<string, unknown> {
  return {
    id: task.id,
    name: task.name,
    type: task.name,
    // A preview (JSON text, shortened), not the arguments themselves.
    args: task.args,
    kwargs: {},
    hostname,
    time_start: task.started === undefined ? null : task.started / 1000,
    acknowledged: task.started !== undefined,
    delivery_info: { exchange: '', routing_key: task.queue, priority: 0, redelivered: task.deliveries > 1 },
    worker_pid: task.childPid ?? null,
  };
}

/** A Celeriac worker's stats under the names Celery's `inspect stats` uses (and Flower reads). */
function celeryStats(stats: WorkerStats): Record<string, unknown> {
  return {
    pid: stats.pid,
    uptime: Math.floor((stats.uptime ?? 0) / 1000),
    pool: { implementation: `celeriac:${stats.pool ?? '?'}`, 'max-concurrency': stats.concurrency, processes: [] },
    prefetch_count: stats.concurrency,
    broker: { transport: 'redis' },
    total: {},
    rusage: { maxrss: Math.round((stats.rss ?? 0) / 1024) },
    celeriac: { processed: stats.processed, queues: stats.queues },
  };
}

/** A consumed queue as Celery's `inspect active_queues` lists it (a direct exchange of its name). */
function queueInfo(name: string): Record<string, unknown> {
  return {
    name,
    exchange: { name, type: 'direct', durable: true, auto_delete: false, arguments: null },
    routing_key: name,
    durable: true,
    exclusive: false,
    auto_delete: false,
    no_ack: false,
    alias: null,
    bindings: [],
    no_declare: null,
    expires: null,
    message_ttl: null,
    max_length: null,
    max_length_bytes: null,
    max_priority: null,
    queue_arguments: null,
    binding_arguments: null,
    consumer_arguments: null,
  };
}
