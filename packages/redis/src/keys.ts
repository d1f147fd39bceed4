/**
 * Every Redis key and channel Celeriac uses, built in one place so the layout reads at a glance.
 *
 * Per queue (hash tag `{<prefix>:<queue>}`, so one script can touch them all, also on Redis Cluster):
 *   ready      ZSET  id -> (255 - priority) * 2^44 + sequence     waiting, highest priority first, FIFO
 *   delayed    ZSET  id -> due time (epoch ms)                     countdown, eta, retry backoff
 *   active     ZSET  id -> lease deadline (epoch ms)               reserved by a worker
 *   messages   HASH  id -> encoded message                         for every waiting, delayed or active id
 *   meta       HASH  priority:<id> -> n (only when n > 0), lost:<id> -> leases lapsed so far,
 *                    paused -> 1 while the queue is paused (reserve leases nothing),
 *                    limits:<id> -> JSON flow-control limits, booked:<id> -> 1 (a rate token is booked),
 *                    limited -> 1 once a message with limits was published, rate-limit:<task> -> JSON rate
 *                    set at run time
 *   slots:<scope>   SET    ids holding a concurrency slot of the scope (task name, or name:key)
 *   waiting:<scope> LIST   ids held for a slot of the scope
 *   rate:<scope>    STRING GCRA theoretical arrival time of the scope's next start (expires)
 *   unique:<key>    STRING id of the unique (or throttled) task holding the key, with the lock's ttl
 *   debounce:<key>  STRING id of the task waiting out the key's debounce window (expires a window after its start)
 *   seq        STRING                                              the FIFO sequence counter
 *   marker     ZSET  'wake' -> 0                                   wakes one blocked worker (BZPOPMIN)
 *   dead       ZSET  id -> time dead-lettered
 *   dead-info  HASH  id -> JSON { body, reason, at, priority, limits? }
 *   failed     ZSET  id -> time it failed for good              the failed-task registry
 *   failed-info HASH body:<id> -> encoded message, info:<id> -> JSON { task, error, attempts }
 *
 * App-wide (hash tag `{<prefix>}`):
 *   queues     SET   names of queues ever published to (for revoke and inspection)
 *   revoked    ZSET  id -> expiry (epoch ms); each revoke forgets the expired ones
 *   revoked-info HASH id -> JSON revocation (terminate flag, reason), pruned with `revoked`
 *   rate-limits HASH task name -> JSON rate set at run time (copied into each queue's meta)
 *   result:<id> STRING encoded task record, with a TTL          (its own slot: keyed by id alone)
 *   worker:<hostname> STRING JSON heartbeat of a live worker, with a TTL
 *   events     STREAM the event log, capped with MAXLEN ~ (one entry a write: rows, base, hostname, pid;
 *              see event-entry.ts)
 *   group:<id>  STRING bitmap of finished group members (one bit each), with a TTL
 *
 * Beat, the periodic-task scheduler (hash tag `{<prefix>}`, so its scripts touch one slot):
 *   beat:lease        STRING the leading scheduler's id, with the lease as TTL
 *   beat:slots        HASH   entry name -> last fired slot (epoch ms)
 *   beat:fingerprints HASH   entry name -> the schedule that slot belongs to
 *   beat:claimed      HASH   entry name -> when its slot in beat:slots was claimed (absent for a starting point)
 *   beat:entries      HASH   entry name -> JSON of an entry added at run time
 *
 * Channels: `<prefix>:reply:<clientId>`
 * (records of tasks that client sent), `<prefix>:done` (ids of finished tasks, for waiters in other processes),
 * `<prefix>:revoke` (revocations), `<prefix>:{<prefix>}:beat:changes` (names of runtime entries added, changed or
 * removed; in beat's slot, as its scripts announce them), `<prefix>:control`
 * (control requests to workers; each reply is pushed to the LIST `<prefix>:control:reply:<request id>`,
 * which the requester pops with BLPOP and which expires on its own).
 */

/**
 * The names of a queue's keys, in the order every queue script takes them (KEYS[1..9]). The scripts'
 * shared include declares them in this order (`local ready = KEYS[1]`, ...); the loader checks that
 * it does (see script-keys.ts).
 */
export const QUEUE_KEYS = [
  'ready',
  'delayed',
  'active',
  'messages',
  'meta',
  'seq',
  'marker',
  'dead',
  'deadInfo',
] as const;

/** The keys of one queue, by name (see {@link QUEUE_KEYS} for their order in a script call). */
export type QueueKeys = { readonly [Name in (typeof QUEUE_KEYS)[number]]: string };

/** The names of a queue's failed-task registry keys, in the order the scripts take them after the queue's. */
export const FAILED_KEYS = ['failed', 'failedInfo'] as const;

/** The failed-task registry keys of one queue, by name. */
export type FailedKeys = { readonly [Name in (typeof FAILED_KEYS)[number]]: string };

/** The keys of the beat scheduler. */
export interface BeatKeys {
  lease: string;
  slots: string;
  fingerprints: string;
  claimed: string;
  entries: string;
}

/** Builds key names for one prefix. */
export class KeySpace {
  constructor(readonly prefix: string) {}

  /** The keys of a queue; all share the queue's hash tag. */
  queue(name: string): QueueKeys {
    const base = `${this.prefix}:{${this.prefix}:${name}}`;
    return {
      ready: `${base}:ready`,
      delayed: `${base}:delayed`,
      active: `${base}:active`,
      messages: `${base}:messages`,
      meta: `${base}:meta`,
      seq: `${base}:seq`,
      marker: `${base}:marker`,
      dead: `${base}:dead`,
      deadInfo: `${base}:dead-info`,
    };
  }

  /** The failed-task registry of a queue (same hash tag as its other keys). */
  failed(name: string): FailedKeys {
    const base = `${this.prefix}:{${this.prefix}:${name}}`;
    return { failed: `${base}:failed`, failedInfo: `${base}:failed-info` };
  }

  /** The app's event log. */
  get events(): string {
    return `${this.prefix}:{${this.prefix}}:events`;
  }

  /** The set of queue names. */
  get queues(): string {
    return `${this.prefix}:{${this.prefix}}:queues`;
  }

  /** Revoked ids with their expiry. */
  get revoked(): string {
    return `${this.prefix}:{${this.prefix}}:revoked`;
  }

  /** Rate limits set at run time, by task name. */
  get rateLimits(): string {
    return `${this.prefix}:{${this.prefix}}:rate-limits`;
  }

  /** Whether each revocation also terminates, by id. */
  get revokedInfo(): string {
    return `${this.prefix}:{${this.prefix}}:revoked-info`;
  }

  /** The heartbeat record of one worker (`*` for a SCAN pattern). */
  worker(hostname: string): string {
    return `${this.prefix}:worker:${hostname}`;
  }

  /** The record of one task. */
  result(id: string): string {
    return `${this.prefix}:result:${id}`;
  }

  /** The beat scheduler's keys, in the order its scripts take them. */
  get beat(): BeatKeys {
    const base = `${this.prefix}:{${this.prefix}}:beat`;
    return {
      lease: `${base}:lease`,
      slots: `${base}:slots`,
      fingerprints: `${base}:fingerprints`,
      claimed: `${base}:claimed`,
      entries: `${base}:entries`,
    };
  }

  /** Where changes of runtime beat entries are announced (in the beat keys' slot: the scripts announce them). */
  get beatChannel(): string {
    return `${this.prefix}:{${this.prefix}}:beat:changes`;
  }

  /** The finished-member bitmap of one group. */
  group(id: string): string {
    return `${this.prefix}:group:${id}`;
  }

  /** Where records of tasks sent by `clientId` are announced. */
  replyChannel(clientId: string): string {
    return `${this.prefix}:reply:${clientId}`;
  }

  /** Where ids of finished tasks are announced to everyone. */
  get doneChannel(): string {
    return `${this.prefix}:done`;
  }

  /** Where control requests to workers are broadcast. */
  get controlChannel(): string {
    return `${this.prefix}:control`;
  }

  /** The list the replies to control request `id` are pushed to. */
  controlReplies(id: string): string {
    return `${this.prefix}:control:reply:${id}`;
  }

  /** Where revocations are announced. */
  get revokeChannel(): string {
    return `${this.prefix}:revoke`;
  }
}

/**
 * Queue keys in script order (KEYS[1..9], as {@link QUEUE_KEYS} lists them; script-keys.test.ts
 * checks that they agree). Written out rather than mapped from the list: every publish, reserve and
 * ack builds one, so it stays the plain array it always was.
 */
export function queueKeyList(keys: QueueKeys): string[] {
  return [
    keys.ready,
    keys.delayed,
    keys.active,
    keys.messages,
    keys.meta,
    keys.seq,
    keys.marker,
    keys.dead,
    keys.deadInfo,
  ];
}
