/**
 * Checks, when the app is made and when a task is registered, that the transport has what the
 * options ask for, so an app fails at once instead of at its first send. The error names the option,
 * what it needs, the transport that lacks it and the transports of this app that have it.
 */
import type { Broker } from '../broker';
import { type BackendCapabilities, type BrokerCapabilities } from '../capabilities';
import { brokerSupports, type BrokerFlag, type BrokerWith } from '../supports';
import { CeleriacError } from '../errors';
import type { FlowOptions } from '../flow/flow-options';
import type { CeleriacOptions, ResolvedAppOptions } from '../options';
import type { TransportClient } from '../transport-client';
import { parseTransportUrl } from './transport-url';

/** The capabilities of an app's broker and backend, and of every transport the app knows. */
export interface TransportSupport {
  readonly broker: BrokerCapabilities;
  readonly backend: BackendCapabilities;
  /** Every broker the app can connect to, for the error's "... have it". */
  readonly knownBrokers: readonly BrokerCapabilities[];
  /** Every backend the app can connect to. */
  readonly knownBackends: readonly BackendCapabilities[];
}

/** Where the capabilities of the transports an app makes come from (the app's transports). */
export interface CapabilitySource {
  /** True for a client object these transports connect through (not a ready Broker or ResultBackend). */
  isClient(target: object): target is TransportClient;
  /** What the broker made for `target` can do, known without connecting. */
  brokerCapabilities(target: URL | TransportClient): BrokerCapabilities;
  /** What the backend made for `target` can do. */
  backendCapabilities(target: URL | TransportClient): BackendCapabilities;
  /** Every broker and backend these transports can make, for errors naming the ones that have a feature. */
  known(): { brokers: readonly BrokerCapabilities[]; backends: readonly BackendCapabilities[] };
}

/** What the app's broker and backend can do, from their URLs (or clients, or the objects given). */
export function resolveSupport(options: ResolvedAppOptions, source: CapabilitySource): TransportSupport {
  const { brokers, backends } = source.known();
  /** From the URL or client the app connects to, or as the object given declares them. */
  const of = <C>(
    given: string | object,
    what: 'broker' | 'backend',
    fromTarget: (target: URL | TransportClient) => C,
  ): C =>
    typeof given === 'string'
      ? fromTarget(parseTransportUrl(given))
      : source.isClient(given)
        ? fromTarget(given)
        : declared(given as { readonly capabilities?: C }, what);
  return {
    broker: of(options.broker, 'broker', (target) => source.brokerCapabilities(target)),
    backend: of(options.backend, 'backend', (target) => source.backendCapabilities(target)),
    knownBrokers: brokers,
    knownBackends: backends,
  };
}

/** The capabilities a Broker or ResultBackend object declares; `CELERIAC_INVALID_OPTION` when it declares none. */
function declared<C>(transport: { readonly capabilities?: C }, what: 'broker' | 'backend'): C {
  if (typeof transport.capabilities !== 'object' || transport.capabilities === null) {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The ${what} object declares no capabilities: give it a \`capabilities\` object (BrokerCapabilities or ` +
        `BackendCapabilities, see docs/architecture.md).`,
    );
  }
  return transport.capabilities;
}

/** The broker flags an option can need, with how the error names each. */
const BROKER_NEEDS = {
  flowControl: 'flow control',
  unique: 'unique tasks',
  debounce: 'debounce',
  failedRegistry: 'a failed-task registry',
  pause: 'paused queues',
  remoteControl: 'a control channel',
} as const;

type BrokerNeed = keyof typeof BROKER_NEEDS;

/**
 * `broker`, narrowed to the methods of `flag`, or `CELERIAC_UNSUPPORTED_BY_TRANSPORT` naming `option`
 * when it does not declare the flag.
 */
export function brokerWith<F extends BrokerNeed & BrokerFlag>(
  support: TransportSupport,
  broker: Broker,
  flag: F,
  option: string,
): BrokerWith<F> {
  if (brokerSupports(broker, flag)) return broker;
  throw brokerLacks(support, option, flag);
}

/** The task options that need a broker flag. */
const TASK_NEEDS: ReadonlyArray<readonly [keyof FlowOptions, BrokerNeed]> = [
  ['rateLimit', 'flowControl'],
  ['concurrency', 'flowControl'],
  ['throttle', 'flowControl'],
  ['unique', 'unique'],
  ['debounce', 'debounce'],
];

/**
 * The error for an option the transport cannot honour.
 * @param option - what the user set, e.g. `rateLimit of task api.call`.
 * @param need - what it needs, e.g. `flow control`.
 */
export function unsupportedByTransport(
  option: string,
  need: string,
  transport: string,
  others: readonly string[],
): CeleriacError {
  const elsewhere =
    others.length === 0
      ? 'no transport this app knows has it'
      : `${others.join('; ')} ${others.length === 1 ? 'has' : 'have'} it`;
  return new CeleriacError(
    'CELERIAC_UNSUPPORTED_BY_TRANSPORT',
    `${option} needs ${need}, which ${transport} lacks; ${elsewhere}. ` +
      'Remove the option or use a transport that has it.',
  );
}

function brokerLacks(support: TransportSupport, option: string, need: BrokerNeed): CeleriacError {
  const others = support.knownBrokers.filter((broker) => broker[need]).map((broker) => broker.transport);
  return unsupportedByTransport(option, BROKER_NEEDS[need], support.broker.transport, others);
}

/** Throws `CELERIAC_UNSUPPORTED_BY_TRANSPORT` for a flow option of task `name` the broker cannot enforce. */
export function checkTaskSupport(support: TransportSupport, name: string, options: FlowOptions): void {
  for (const [option, need] of TASK_NEEDS) {
    if (options[option] !== undefined && !support.broker[need])
      throw brokerLacks(support, `${option} of task ${name}`, need);
  }
}

/** Throws `CELERIAC_UNSUPPORTED_BY_TRANSPORT` for an app option the broker or backend cannot honour. */
export function checkAppSupport(support: TransportSupport, options: CeleriacOptions): void {
  const { broker, backend } = support;
  if (options.durability === 'replicated') {
    for (const [side, caps, known] of [
      ['broker', broker, support.knownBrokers],
      ['backend', backend, support.knownBackends],
    ] as const) {
      if (!caps.durability.includes('replicated')) {
        const others = known.filter((other) => other.durability.includes('replicated')).map((other) => other.transport);
        throw unsupportedByTransport(
          "durability: 'replicated'",
          `a ${side} that waits for replicas`,
          caps.transport,
          others,
        );
      }
    }
  }
  if (options.maxDeliveries !== undefined && broker.deliveryCounts !== 'exact') {
    const others = support.knownBrokers.filter((other) => other.deliveryCounts === 'exact').map((b) => b.transport);
    throw unsupportedByTransport('maxDeliveries', 'exact delivery counts', broker.transport, others);
  }
  for (const option of ['failedTtl', 'failedLimit'] as const) {
    const value = options[option];
    if (value !== undefined && value !== 0 && !broker.failedRegistry)
      throw brokerLacks(support, option, 'failedRegistry');
  }
}
