/**
 * Jest global setup of the `behaviour on rabbitmq` project: one vhost for the run, named in
 * `CELERIAC_TEST_VHOST` for the test workers (each test keeps to a prefix of its own inside it).
 */
import { createTestVhost } from '../rabbitmq-fixture';

export default async function setup(): Promise<void> {
  const vhost = await createTestVhost('behaviour');
  process.env.CELERIAC_TEST_VHOST = vhost.name;
}
