/**
 * What the Celery protocol on Redis (`protocol: 'celery'`) declares it can do: what kombu's Redis
 * transport has a place for that Python workers honour too, plus what Celeriac keeps beside it
 * (revocations, worker records, control) through an inner Redis broker.
 */
import type { BackendCapabilities, BrokerCapabilities } from '@celeriac/core';

/** How error messages name the Celery protocol on Redis. */
const CELERY = "the Celery protocol on Redis (protocol: 'celery')";

/**
 * The Celery broker. No flow control, unique or debounce (a Python worker would not honour them),
 * no paused queues (Python workers would go on taking), no failed-task registry; a caller-chosen id
 * is not kept unique (kombu's lists cannot tell whether an id waits, as in Celery); a revoke does not
 * find a waiting message in kombu's lists (the worker that takes it refuses it, as a Celery worker
 * does); a message with an eta waits in its queue and the worker that takes it holds it until due,
 * as Celery's do; delivery counts are kombu's `redelivered` flag; publishes do not wait for replicas.
 */
export const CELERY_BROKER_CAPABILITIES = {
  transport: CELERY,
  flowControl: false,
  unique: false,
  debounce: false,
  uniqueIds: false,
  revokeRemoves: false,
  delays: 'consumer',
  deliveryCounts: 'redelivered',
  priorities: 'kombu-steps',
  pause: false,
  failedRegistry: false,
  remoteControl: true,
  workerRecords: true,
  transactionalPublish: false,
  waitAndReserve: true,
  drainedHint: false,
  reconnect: true,
  durability: ['async'],
  sharedState: ['revocations', 'worker-records', 'control-replies'],
} as const satisfies BrokerCapabilities;

/**
 * The Celery backend: Celery's result format (with what it has no field for beside it, so records
 * read back whole), Celeriac's event log also sent as Celery events. No many-task waits: each
 * result has its own key and channel, as in Celery, so a group's members are awaited one by one.
 */
export const CELERY_BACKEND_CAPABILITIES = {
  transport: CELERY,
  events: true,
  waitForMany: false,
  changes: true,
  durability: ['async'],
} as const satisfies BackendCapabilities;
