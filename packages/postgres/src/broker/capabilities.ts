/** What the PostgreSQL broker (`postgres://`, `postgresql://`) declares it can do. */
import type { BrokerCapabilities } from '@celeriac/core';
import { SHARED_STATE_PARTS } from '@celeriac/core/internal';

/**
 * The PostgreSQL broker: messages and every part of the shared state in one schema, each move one
 * statement; publishes can join the caller's transaction. No replicas are waited for.
 */
export const POSTGRES_BROKER_CAPABILITIES = {
  transport: 'postgres://, postgresql://',
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
  transactionalPublish: true,
  waitAndReserve: true,
  drainedHint: true,
  reconnect: false,
  durability: ['async'],
  sharedState: SHARED_STATE_PARTS,
} as const satisfies BrokerCapabilities;
