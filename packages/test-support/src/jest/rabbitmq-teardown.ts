/** Jest global teardown of the `behaviour on rabbitmq` project: deletes the vhost its setup made. */
import { rabbitmqctl } from '../rabbitmq-fixture';

export default async function teardown(): Promise<void> {
  const vhost = process.env.CELERIAC_TEST_VHOST;
  if (vhost !== undefined) await rabbitmqctl('delete_vhost', vhost);
}
