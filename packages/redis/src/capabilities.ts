/** What the Redis broker and backend (`redis://`, `redis+cluster://`, `redis+sentinel://`) declare they can do. */
import type { BackendCapabilities, BrokerCapabilities } from '@celeriac/core';
import { SHARED_STATE_PARTS } from '@celeriac/core/internal';

/** How error messages name Celeriac's own protocol on Redis. */
const REDIS = 'redis://, redis+cluster://, redis+sentinel://';

/** The Redis broker: every feature, each move one Lua script; `'replicated'` waits for replicas (WAIT). */
export const REDIS_BROKER_CAPABILITIES = {
  transport: REDIS,
  flowControl: true,
  unique: true,
  debounce: true,
  uniqueIds: true,
  revokeRemoves: true,
  delays: 'broker',
  deliveryCounts: 'exact',
  priorities: 'higher-first',
  pause: true,
  failedRegistry: true,
  remoteControl: true,
  workerRecords: true,
  transactionalPublish: false,
  waitAndReserve: true,
  drainedHint: true,
  reconnect: true,
  durability: ['async', 'replicated'],
  sharedState: SHARED_STATE_PARTS,
} as const satisfies BrokerCapabilities;

/** The Redis backend: records, group counters, the event log (a stream), change notices, many-task waits. */
export const REDIS_BACKEND_CAPABILITIES = {
  transport: REDIS,
  events: true,
  waitForMany: true,
  changes: true,
  durability: ['async', 'replicated'],
} as const satisfies BackendCapabilities;
