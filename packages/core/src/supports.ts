/**
 * Reading the capability flags: the type guards that narrow a broker or backend to the members a
 * flag stands for, and the check that a transport's flags keep their word.
 */
import type { ResultBackend } from './backend';
import type { Broker } from './broker';
import type { BackendCapabilities, BrokerCapabilities } from './capabilities';

/** The broker methods each flag stands for. */
const BROKER_METHODS = {
  flowControl: ['setRateLimit', 'rateLimits'],
  pause: ['pauseQueue', 'resumeQueue', 'pausedQueues'],
  failedRegistry: ['keepFailed', 'listFailed', 'getFailed', 'discardFailed', 'countFailed', 'queueNames'],
  remoteControl: ['broadcast', 'onControl', 'listQueues'],
  workerRecords: ['heartbeat', 'forgetWorker', 'listWorkers'],
  waitAndReserve: ['waitAndReserve'],
  transactionalPublish: ['publishInTransaction'],
  drainedHint: ['drained'],
  reconnect: ['reconnect'],
} as const satisfies Partial<Record<keyof BrokerCapabilities, ReadonlyArray<keyof Broker>>>;

/** The backend members each flag stands for. */
const BACKEND_MEMBERS = {
  events: ['events'],
  waitForMany: ['waitForMany'],
  changes: ['onChange'],
} as const satisfies Partial<Record<keyof BackendCapabilities, ReadonlyArray<keyof ResultBackend>>>;

/**
 * The members a transport's flags promise and it lacks, as `flag: member` (empty when it keeps its
 * word). The conformance suites fail a transport on any.
 */
export function missingMethods(transport: Broker | ResultBackend): string[] {
  const table: Record<string, readonly string[]> = 'publish' in transport ? BROKER_METHODS : BACKEND_MEMBERS;
  const flags = transport.capabilities as unknown as Record<string, unknown>;
  const members = transport as unknown as Record<string, unknown>;
  return Object.entries(table).flatMap(([flag, names]) =>
    flags[flag] === true ? names.filter((name) => members[name] === undefined).map((name) => `${flag}: ${name}`) : [],
  );
}

/** The broker flags that stand for optional methods. */
export type BrokerFlag = keyof typeof BROKER_METHODS;
/** A broker whose `flag` is set: the methods it stands for are there. */
export type BrokerWith<F extends BrokerFlag> = Broker & Required<Pick<Broker, (typeof BROKER_METHODS)[F][number]>>;
/** The backend flags that stand for optional members. */
export type BackendFlag = keyof typeof BACKEND_MEMBERS;
/** A backend whose `flag` is set: the members it stands for are there. */
export type BackendWith<F extends BackendFlag> = ResultBackend &
  Required<Pick<ResultBackend, (typeof BACKEND_MEMBERS)[F][number]>>;

/** True when `broker` declares `flag`; narrows it to the methods the flag stands for. */
export function brokerSupports<F extends BrokerFlag>(broker: Broker, flag: F): broker is BrokerWith<F> {
  return broker.capabilities[flag];
}

/** True when `backend` declares `flag`; narrows it to the members the flag stands for. */
export function backendSupports<F extends BackendFlag>(backend: ResultBackend, flag: F): backend is BackendWith<F> {
  return backend.capabilities[flag];
}
