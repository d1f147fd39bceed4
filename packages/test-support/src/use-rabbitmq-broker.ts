/** Jest setup of the `behaviour on rabbitmq` project: the behaviour suite on RabbitMQ + Redis (see test-broker.ts). */
process.env.CELERIAC_TEST_BROKER = 'rabbitmq';
