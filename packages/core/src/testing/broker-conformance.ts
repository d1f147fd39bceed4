/**
 * The Broker conformance suite: every method of the {@link Broker} contract, run against any
 * implementation with `runBrokerConformance('redis', REDIS_BROKER_CAPABILITIES, factory)` inside a
 * jest test file. Each area runs under its capability flag; an area the transport does not declare
 * is listed as "<area>: not declared by <name>" and checked for the lack instead. A transport with
 * message bodies of its own passes a {@link BodyFormat} (see broker/bodies.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Broker, BrokerSettings } from '../broker';
import type { BrokerCapabilities } from '../capabilities';
import { withBodyFormat, type BodyFormat } from './broker/bodies';
import { capabilityCases } from './broker/capability-cases';
import { controlCases } from './broker/control-cases';
import { debounceCases } from './broker/debounce-cases';
import { consumerDelayCases, delayCases } from './broker/delay-cases';
import { deliveryCountCases } from './broker/delivery-count-cases';
import { failedCases } from './broker/failed-cases';
import { flowCases } from './broker/flow-cases';
import type { BrokerFactory, OpenBroker } from './broker/harness';
import { leaseCases } from './broker/lease-cases';
import * as lack from './broker/opted-out';
import { pauseCases } from './broker/pause-cases';
import { priorityCases } from './broker/priority-cases';
import { queueCases } from './broker/queue-cases';
import { revokeCases } from './broker/revoke-cases';
import { settleCases } from './broker/settle-cases';
import { uniqueCases } from './broker/unique-cases';
import { uniqueIdCases, uniqueIdLack } from './broker/unique-id-cases';
import { waitCases } from './broker/wait-cases';
import { featureArea } from './feature-area';
import { cleanedUpAfterEach } from './fixtures';

/** Settings of a conformance broker before a test's overrides; the prefix is unique per fixture. */
export function conformanceBrokerSettings(overrides: Partial<BrokerSettings> = {}): BrokerSettings {
  return {
    prefix: `conformance-${randomUUID()}`,
    visibilityTimeout: 30_000,
    maxDeliveries: 5,
    revokeTtl: 60_000,
    ...overrides,
  };
}

/** How a transport's suite differs from the default. */
export interface BrokerConformanceOptions {
  /**
   * How the cases' bodies travel, for a broker that reads each body (the Celery broker); left out,
   * bodies go to the broker as they are and must come back the same.
   */
  readonly bodies?: BodyFormat;
}

/**
 * Defines a jest `describe` block that checks `factory`'s brokers against the Broker contract, each
 * area under the flag of `capabilities` it needs (the fixture's broker must declare exactly these).
 * Each test opens its own fixture(s) with a unique prefix and cleans them up afterwards.
 */
export function runBrokerConformance(
  name: string,
  capabilities: BrokerCapabilities,
  factory: BrokerFactory,
  options: BrokerConformanceOptions = {},
): void {
  const { bodies } = options;
  const seen = (broker: Broker): Broker => (bodies ? withBodyFormat(broker, bodies) : broker);
  describe(`Broker conformance: ${name}`, () => {
    const open: OpenBroker = cleanedUpAfterEach(async (overrides: Partial<BrokerSettings> = {}) => {
      const settings = conformanceBrokerSettings(overrides);
      const fixture = await factory(settings);
      const broker = seen(fixture.broker);
      const peer = fixture.peer && seen(fixture.peer);
      return { ...fixture, broker, ...(peer ? { peer } : {}), settings, writer: peer ?? broker };
    });
    const area = (title: string, declared: boolean, cases: () => void, lacks: () => void) =>
      featureArea(name, title, declared, cases, lacks);
    const { flowControl, unique, debounce, uniqueIds, pause, failedRegistry, remoteControl, priorities } = capabilities;

    describe('capabilities', () => capabilityCases(open, capabilities));
    describe('publish and reserve', () => queueCases(open));
    describe('waitForWork and close', () => waitCases(open));
    describe('requeue and dead letters', () => settleCases(open));
    describe('leases', () => leaseCases(open));
    describe('revocations', () => revokeCases(open, capabilities.revokeRemoves));
    area(
      'delays kept by the broker',
      capabilities.delays === 'broker',
      () => delayCases(open),
      () => consumerDelayCases(open),
    );
    area(
      'priorities',
      priorities === 'higher-first',
      () => priorityCases(open),
      () => (priorities === 'none' ? lack.priorityLack(open) : lack.kombuPriorityLack(open)),
    );
    area(
      'caller-chosen ids',
      uniqueIds,
      () => uniqueIdCases(open),
      () => uniqueIdLack(open),
    );
    area(
      'delivery counts',
      capabilities.deliveryCounts === 'exact',
      () => deliveryCountCases(open),
      () => lack.deliveryCountLack(open),
    );
    area(
      'control channel',
      remoteControl,
      () => controlCases(open),
      () => lack.remoteControlLack(open),
    );
    area(
      'paused queues',
      pause,
      () => pauseCases(open),
      () => lack.pauseLack(open),
    );
    area(
      'failed-task registry',
      failedRegistry,
      () => failedCases(open),
      () => lack.failedRegistryLack(open),
    );
    area(
      'flow control',
      flowControl,
      () => flowCases(open),
      () => lack.flowControlLack(open),
    );
    area(
      'unique tasks',
      unique,
      () => uniqueCases(open),
      () => lack.uniqueLack(open),
    );
    area(
      'debounce',
      debounce,
      () => debounceCases(open),
      () => lack.debounceLack(open),
    );
    if (!capabilities.durability.includes('replicated'))
      area(
        'replicated durability',
        false,
        () => undefined,
        () => lack.replicationLack(open),
      );
  });
}
