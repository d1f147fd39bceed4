/**
 * @celeriac/core/testing: the Broker and ResultBackend conformance suites (for jest) and the waiting
 * helpers they use. CommonJS code (and TypeScript compiled to it) requires `@celeriac/core/testing`;
 * ES modules import `@celeriac/core/testing/index.js` (the package has no `exports` map, see
 * docs/architecture.md). Run the suites against every implementation:
 *
 * ```ts
 * runBrokerConformance('memory', async (settings) => {
 *   const broker = new MemoryBroker(settings);
 *   return { broker, cleanup: () => broker.close() };
 * });
 * ```
 */
export { runBackendConformance } from './backend-conformance';
export { runBeatStoreConformance } from './beat-store-conformance';
export type { BeatStoreFactory, BeatStoreFixture } from './beat-store/harness';
export type { BackendConformanceContext, BackendConformanceOptions, BackendFactory, BackendFixture } from './backend/harness';
export { conformanceBrokerSettings, runBrokerConformance } from './broker-conformance';
export type { BrokerFactory, BrokerFixture } from './broker/harness';
export { deferred, settledWithin, untilPast, withDeadline, type Deferred } from './wait';
