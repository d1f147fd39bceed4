/**
 * The Broker conformance suite: every method of the {@link Broker} contract, run against any
 * implementation with `runBrokerConformance('redis', factory)` inside a jest test file.
 */
import { randomUUID } from 'node:crypto';
import type { BrokerSettings } from '../broker';
import { controlCases } from './broker/control-cases';
import type { BrokerFactory, OpenBroker } from './broker/harness';
import { failedCases } from './broker/failed-cases';
import { flowCases } from './broker/flow-cases';
import { debounceCases } from './broker/debounce-cases';
import { uniqueCases } from './broker/unique-cases';
import { leaseCases } from './broker/lease-cases';
import { queueCases } from './broker/queue-cases';
import { revokeCases } from './broker/revoke-cases';
import { settleCases } from './broker/settle-cases';
import { waitCases } from './broker/wait-cases';
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

/**
 * Defines a jest `describe` block that checks `factory`'s brokers against the Broker contract.
 * Each test opens its own fixture(s) with a unique prefix and cleans them up afterwards.
 */
export function runBrokerConformance(name: string, factory: BrokerFactory): void {
  describe(`Broker conformance: ${name}`, () => {
    const open: OpenBroker = cleanedUpAfterEach(async (overrides: Partial<BrokerSettings> = {}) => {
      const settings = conformanceBrokerSettings(overrides);
      const fixture = await factory(settings);
      return { ...fixture, settings, writer: fixture.peer ?? fixture.broker };
    });

    describe('publish and reserve', () => queueCases(open));
    describe('waitForWork and close', () => waitCases(open));
    describe('requeue and dead letters', () => settleCases(open));
    describe('leases', () => leaseCases(open));
    describe('revocations', () => revokeCases(open));
    describe('control channel and paused queues', () => controlCases(open));
    describe('failed-task registry', () => failedCases(open));
    describe('flow control', () => flowCases(open));
    describe('unique tasks', () => uniqueCases(open));
    describe('debounce', () => debounceCases(open));
  });
}
