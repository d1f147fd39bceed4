/** Jest runs every package's tests against the TypeScript sources (no build needed). */
import type { Config } from 'jest';

const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
    module: { type: 'commonjs' },
  },
];

/** Start and stop the local test cluster when a run needs it (packages/test-support/src/redis-cluster.ts). */

/** What every project shares. */
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': swc as unknown as string },
  // superjson 2 and its helpers ship ESM only; jest's CommonJS runtime needs them compiled.
  transformIgnorePatterns: ['/node_modules/(?!(superjson|copy-anything|is-what)/)'],
  moduleNameMapper: {
    '^@celeriac/core$': '<rootDir>/packages/core/src/index.ts',
    '^@celeriac/core/testing$': '<rootDir>/packages/core/src/testing/index.ts',
    '^@celeriac/core/internal$': '<rootDir>/packages/core/src/internal/index.ts',
    '^@celeriac/redis$': '<rootDir>/packages/redis/src/index.ts',
    '^@celeriac/redis/internal$': '<rootDir>/packages/redis/src/internal/index.ts',
    '^@celeriac/celery$': '<rootDir>/packages/celery/src/index.ts',
    '^@celeriac/celery/internal$': '<rootDir>/packages/celery/src/internal/index.ts',
    '^@celeriac/postgres$': '<rootDir>/packages/postgres/src/index.ts',
    '^@celeriac/amqp$': '<rootDir>/packages/amqp/src/index.ts',
    '^@celeriac/worker$': '<rootDir>/packages/worker/src/index.ts',
    '^@celeriac/worker/internal$': '<rootDir>/packages/worker/src/internal/index.ts',
    '^@celeriac/beat$': '<rootDir>/packages/beat/src/index.ts',
    '^@celeriac/dashboard$': '<rootDir>/packages/dashboard/src/index.ts',
    '^celeriac$': '<rootDir>/packages/celeriac/src/index.ts',
    '^celeriac/testing$': '<rootDir>/packages/celeriac/src/testing.ts',
    '^@celeriac/test-support$': '<rootDir>/packages/test-support/src/index.ts',
  },
  // Fails a test that leaves a worker or an app connection open.
  setupFilesAfterEnv: ['<rootDir>/packages/celeriac/test/support/jest-setup.ts'],
} satisfies Config;

/**
 * Jest global setup and teardown modules. Jest runs each module once a run, with the config of the
 * first project it meets that names it, so each kind of server has its own (see jest/cluster-setup.ts).
 */
const servers = (kind: 'topology' | 'cluster' | 'sentinel' | 'rabbitmq') => ({
  globalSetup: `<rootDir>/packages/test-support/src/jest/${kind}-setup.ts`,
  globalTeardown: `<rootDir>/packages/test-support/src/jest/${kind}-teardown.ts`,
});

/** The Redis topology the suite runs on (`CELERIAC_REDIS_TOPOLOGY`): `single` unless set. */
const topology = process.env.CELERIAC_REDIS_TOPOLOGY ?? 'single';

/** The behaviour files that pick their broker themselves or test none: run once, not again per broker. */
const BEHAVIOUR_ELSEWHERE = [
  '/(beat-redis|beat-signing|canvas-recovery|canvas-types|leak-tracker|package|public-surface)\\.test\\.ts$',
  '/(events-redis|publish-failure|purge|signing)\\.test\\.ts$',
];

/**
 * The other brokers the behaviour suite runs on again (`CELERIAC_TEST_TRANSPORTS`, comma-separated:
 * `postgres`, `rabbitmq`, and `rabbitmq-cluster` for the three-node failover), as the Redis
 * topologies are chosen: `npm run test:postgres`, `test:rabbitmq` and `test:rabbitmq-cluster` set it.
 * Their conformance suites and end-to-end tests are in every run; the behaviour suite again on each
 * would take `npm test` past its time budget on two cores.
 */
const transports = new Set((process.env.CELERIAC_TEST_TRANSPORTS ?? '').split(',').filter(Boolean));

const config: Config = {
  // A global option: jest ignores it inside a project.
  testTimeout: 30_000,
  // Jest's default is one worker on two cores (cores - 1); most suites wait on Redis and on the worker
  // processes they start, so two keep both cores busy and halve the suite's wall time.
  maxWorkers: 2,
  projects: [
    // Every test but the cluster and Sentinel suites; the behaviour suite on the broker
    // CELERIAC_TEST_BROKER names (memory by default), on the Redis topology CELERIAC_REDIS_TOPOLOGY
    // names (`single` by default; `cluster` and `sentinel` start the test servers).
    {
      ...shared,
      displayName: 'all',
      roots: ['<rootDir>/packages'],
      testMatch: ['**/test/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/test/cluster/',
        '/test/cluster-failover/',
        '/test/sentinel/',
        '/test/rabbitmq-cluster/',
      ],
      ...servers('topology'),
    },
    // The Redis suites again on a local Redis Cluster of 3 masters and 3 replicas (ports 7000-7005),
    // started for this project and stopped at the end: conformance, a worker run, a chord of 1,000,
    // resharding; and a master failover on a cluster of its own (7100-7105, started by the test).
    {
      ...shared,
      displayName: 'cluster',
      roots: ['<rootDir>/packages'],
      testMatch: [
        '<rootDir>/packages/redis/test/conformance.test.ts',
        '<rootDir>/packages/redis/test/beat-store-conformance.test.ts',
        '**/test/cluster/*.test.ts',
        '**/test/cluster-failover/*.test.ts',
      ],
      setupFiles: ['<rootDir>/packages/test-support/src/use-redis-cluster.ts'],
      ...servers('cluster'),
    },
    // Apps on Redis Sentinel, and a failover: a master, a replica and three Sentinels on loopback,
    // started for this project. Left out under CELERIAC_REDIS_TOPOLOGY=sentinel, where the other Redis
    // tests use the same servers and its failover would pull the master from under them.
    ...(topology === 'sentinel'
      ? []
      : [
          {
            ...shared,
            displayName: 'sentinel',
            roots: ['<rootDir>/packages'],
            testMatch: ['**/test/sentinel/*.test.ts'],
            ...servers('sentinel'),
          },
        ]),
    // The behaviour suite again on Redis: the files whose app comes from `useApp` (support/app.ts).
    // The others pick their broker themselves or test no broker, so a second run would add nothing.
    {
      ...shared,
      displayName: 'behaviour on redis',
      roots: ['<rootDir>/packages/celeriac/test'],
      testMatch: ['<rootDir>/packages/celeriac/test/*.test.ts'],
      testPathIgnorePatterns: BEHAVIOUR_ELSEWHERE,
      setupFiles: ['<rootDir>/packages/test-support/src/use-redis-broker.ts'],
      ...servers('topology'),
    },
    // The behaviour suite on the PostgreSQL broker (results in Redis), the same files as on Redis.
    ...(!transports.has('postgres')
      ? []
      : [
          {
            ...shared,
            displayName: 'behaviour on postgres',
            roots: ['<rootDir>/packages/celeriac/test'],
            testMatch: ['<rootDir>/packages/celeriac/test/*.test.ts'],
            testPathIgnorePatterns: BEHAVIOUR_ELSEWHERE,
            setupFiles: ['<rootDir>/packages/test-support/src/use-postgres-broker.ts'],
            ...servers('topology'),
          },
        ]),
    // A RabbitMQ cluster of three nodes the test starts, and the loss of the node leading a queue.
    ...(!transports.has('rabbitmq-cluster')
      ? []
      : [
          {
            ...shared,
            displayName: 'rabbitmq cluster',
            roots: ['<rootDir>/packages/celeriac/test/rabbitmq-cluster'],
            testMatch: ['**/*.test.ts'],
            ...servers('topology'),
          },
        ]),
    // The behaviour suite on RabbitMQ (messages) with Redis (results, shared state), in a vhost of the run's own.
    ...(!transports.has('rabbitmq')
      ? []
      : [
          {
            ...shared,
            displayName: 'behaviour on rabbitmq',
            roots: ['<rootDir>/packages/celeriac/test'],
            testMatch: ['<rootDir>/packages/celeriac/test/*.test.ts'],
            // Flow control, unique tasks and debounce: RabbitMQ declares them lacking (see docs/rabbitmq.md).
            testPathIgnorePatterns: [...BEHAVIOUR_ELSEWHERE, '/(debounce|flow-options)\\.test\\.ts$'],
            setupFiles: ['<rootDir>/packages/test-support/src/use-rabbitmq-broker.ts'],
            ...servers('rabbitmq'),
          },
        ]),
  ],
};

export default config;
