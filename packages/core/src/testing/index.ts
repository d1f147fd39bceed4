/**
 * @celeriac/core/testing: the Broker and ResultBackend conformance suites (for jest) and the waiting
 * helpers they use, imported from `@celeriac/core/testing` (CommonJS and ES modules alike). Run the
 * suites against every implementation:
 *
 * ```ts
 * runBrokerConformance('memory', MEMORY_BROKER_CAPABILITIES, async (settings) => {
 *   const broker = new MemoryBroker(settings);
 *   return { broker, cleanup: () => broker.close() };
 * });
 * ```
 */
export { runBackendConformance } from './backend-conformance';
export { runBeatStoreConformance } from './beat-store-conformance';
export type { BeatStoreFactory, BeatStoreFixture } from './beat-store/harness';
export type { BackendConformanceContext, BackendFactory, BackendFixture } from './backend/harness';
export { conformanceBrokerSettings, runBrokerConformance, type BrokerConformanceOptions } from './broker-conformance';
export type { BodyFormat } from './broker/bodies';
export type { BrokerFactory, BrokerFixture } from './broker/harness';
export { deferred, settledWithin, untilPast, withDeadline, type Deferred } from './wait';
