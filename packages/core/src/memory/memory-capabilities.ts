/** What the memory broker and backend (`memory://`, one process) declare they can do. */
import { SHARED_STATE_PARTS, type BackendCapabilities, type BrokerCapabilities } from '../capabilities';

/** The memory broker: every feature, in one process; there are no replicas to wait for. */
export const MEMORY_BROKER_CAPABILITIES = {
  transport: 'memory://',
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
  waitAndReserve: false,
  drainedHint: false,
  reconnect: false,
  durability: ['async'],
  sharedState: SHARED_STATE_PARTS,
} as const satisfies BrokerCapabilities;

/** The memory backend: records, group counters, the event log and change notices, in one process. */
export const MEMORY_BACKEND_CAPABILITIES = {
  transport: 'memory://',
  events: true,
  waitForMany: false,
  changes: true,
  durability: ['async'],
} as const satisfies BackendCapabilities;
