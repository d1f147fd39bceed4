/** Jest setup of the `behaviour on redis` project: runs the behaviour suite on Redis (see test-broker.ts). */
process.env.CELERIAC_TEST_BROKER = 'redis';
