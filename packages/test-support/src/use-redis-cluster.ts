/** Jest setup of the `cluster` project: its suites run on the local test cluster (see redis-fixture.ts). */
process.env.CELERIAC_REDIS_TOPOLOGY = 'cluster';
