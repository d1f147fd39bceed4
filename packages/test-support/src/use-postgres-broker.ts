/** Jest setup of the `behaviour on postgres` project: runs the behaviour suite on PostgreSQL (see test-broker.ts). */
process.env.CELERIAC_TEST_BROKER = 'postgres';
