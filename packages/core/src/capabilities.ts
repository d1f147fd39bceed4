/**
 * What a transport can do, declared once as one typed object (after kombu's `Transport.implements`).
 * The app, the worker, beat, the CLI and the dashboard branch on these flags, never on whether an
 * optional method happens to exist; the conformance suites run each case under its flag and check
 * that every flag a transport sets comes with the methods it stands for (`missingMethods`, in
 * supports.ts).
 */

/** How far a write must have gone before it counts as done (see `CeleriacOptions.durability`). */
export type Durability = 'async' | 'replicated';

/**
 * The state a deployment's workers share, apart from the messages themselves. A broker that holds
 * messages only (RabbitMQ) keeps none of it and pairs with a store (Redis, PostgreSQL) that does.
 */
export const SHARED_STATE_PARTS = [
  'revocations',
  'flow-counters',
  'failed-registry',
  'worker-records',
  'control-replies',
  'paused-queues',
] as const;

/** One part of {@link SHARED_STATE_PARTS}. */
export type SharedStatePart = (typeof SHARED_STATE_PARTS)[number];

/** What a {@link Broker} can do. Every flag is required: a new transport states each one. */
export interface BrokerCapabilities {
  /** How error messages name this transport, e.g. `memory://` or `the Celery protocol on Redis`. */
  readonly transport: string;
  /**
   * Rate and concurrency limits (`rateLimit`, `concurrency`, `throttle`) enforced when a message is
   * leased, across every worker, and rates changed at run time (`setRateLimit`, `rateLimits`).
   */
  readonly flowControl: boolean;
  /** `unique` tasks: a send whose key is held answers `{ duplicateOf }` instead of storing. */
  readonly unique: boolean;
  /** `debounce`: a send within its key's window replaces the waiting task's message (`debounceInto`). */
  readonly debounce: boolean;
  /** A caller-chosen id (`taskId`) still waiting or running makes a second publish `'duplicate'`. */
  readonly uniqueIds: boolean;
  /**
   * `revoke` finds a waiting or delayed message by its id and removes it (`removed: true`). Without
   * it the revocation is only remembered, and the worker that leases the message refuses to run it.
   */
  readonly revokeRemoves: boolean;
  /**
   * Where a message with an eta (or requeued with a delay) waits. `'broker'`: in the broker, counted
   * `delayed`; no reserve or wait hands it out before it is due. `'consumer'`: in its queue, counted
   * ready, until a worker takes it and holds it until due (in this process's `delayed`), as Celery's
   * workers do on kombu's Redis transport.
   */
  readonly delays: 'broker' | 'consumer';
  /**
   * `'exact'`: a lapsed lease raises `Delivery.deliveries` and `maxDeliveries` dead-letters a message
   * that keeps killing its workers. `'redelivered'`: only "1" or "more than 1" is known, nothing is
   * dead-lettered for it.
   */
  readonly deliveryCounts: 'exact' | 'redelivered';
  /**
   * How `priority` orders a queue. `'higher-first'`: the contract (0–255, higher leased first).
   * `'kombu-steps'`: kombu's Redis transport (0–9 in four steps, 0 first, as Celery orders them).
   * `'none'`: first in, first out whatever the priority.
   */
  readonly priorities: 'higher-first' | 'kombu-steps' | 'none';
  /** `pauseQueue`, `resumeQueue`, `pausedQueues`: a paused queue keeps accepting, no worker takes from it. */
  readonly pause: boolean;
  /**
   * The failed-task registry: `keepFailed`, `listFailed`, `getFailed`, `discardFailed`, `countFailed`,
   * `queueNames`.
   */
  readonly failedRegistry: boolean;
  /** The control channel: `broadcast`, `onControl`, `listQueues` (inspect, ping, pool and consumer changes). */
  readonly remoteControl: boolean;
  /** Worker records: `heartbeat`, `forgetWorker`, `listWorkers` (status, the dashboard, metrics). */
  readonly workerRecords: boolean;
  /**
   * `publishInTransaction`: the `transaction` send option stores tasks through the caller's database
   * client, visible only if its transaction commits.
   */
  readonly transactionalPublish: boolean;
  /** The fused wait-then-lease fast path `waitAndReserve`, and the `drained` hint that lets a worker go to it. */
  readonly waitAndReserve: boolean;
  /** `drained`: the broker knows that its last reservation emptied the queues. */
  readonly drainedHint: boolean;
  /** `reconnect`: waits can hang on a client, and the fetch loop may drop them to start afresh. */
  readonly reconnect: boolean;
  /** The durability levels publishes and acks honour (`durability` of the app). */
  readonly durability: readonly Durability[];
  /**
   * The parts of the deployment's shared state this broker keeps itself. A messages-only broker
   * lists none: the app then needs a store for them (see docs/architecture.md).
   */
  readonly sharedState: readonly SharedStatePart[];
}

/** What a {@link ResultBackend} can do. */
export interface BackendCapabilities {
  /** How error messages name this transport. */
  readonly transport: string;
  /** The event log (`events`): `app.events`, `celeriac events`, the dashboard's feed. */
  readonly events: boolean;
  /** `waitForMany`: a group's members awaited as one wait. */
  readonly waitForMany: boolean;
  /** `onChange`: every state change of a task this client sent (progress, retries). */
  readonly changes: boolean;
  /** The durability levels stored records honour. */
  readonly durability: readonly Durability[];
}
