/**
 * celeriac/testing: the conformance suites (for jest) that a Broker, ResultBackend or BeatStore of
 * your own runs against itself, and the waiting helpers they use. The same as `@celeriac/core/testing`,
 * which is bundled inside the `celeriac` package and not importable from an application.
 */
export {
  conformanceBrokerSettings,
  deferred,
  runBackendConformance,
  runBeatStoreConformance,
  runBrokerConformance,
  settledWithin,
  untilPast,
  withDeadline,
  type BackendConformanceContext,
  type BackendFactory,
  type BackendFixture,
  type BeatStoreFactory,
  type BeatStoreFixture,
  type BrokerFactory,
  type BrokerFixture,
  type Deferred,
} from '@celeriac/core/testing';
