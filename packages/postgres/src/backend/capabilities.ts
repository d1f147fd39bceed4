/** What the PostgreSQL result backend declares it can do. */
import type { BackendCapabilities } from '@celeriac/core';

/** How error messages name this transport. */
const POSTGRES = 'postgres://, postgresql://';

/**
 * The PostgreSQL backend: records, group counters, the event log (a table), change notices and
 * many-task waits; `durability` is `'async'` only (a commit is durable on the primary; replicas are
 * not awaited).
 */
export const POSTGRES_BACKEND_CAPABILITIES = {
  transport: POSTGRES,
  events: true,
  waitForMany: true,
  changes: true,
  durability: ['async'],
} as const satisfies BackendCapabilities;
