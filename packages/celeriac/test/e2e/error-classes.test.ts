import { TaskFailedError } from 'celeriac';
import { PaymentDeclined } from '../support/payment-declined';
import { useE2e } from './support/worker-process';

describe('celeriac worker: registered error classes across processes', () => {
  const e2e = useE2e('e2e-error-classes');

  it('--pool prefork: a registered error comes back as its class, with its fields and the remote stack', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app();
    client.registerError(PaymentDeclined);
    const failure = (await client
      .sendTask('e2e.decline', [42])
      .get({ timeout: 20_000, propagate: false })) as TaskFailedError;
    expect(failure).toBeInstanceOf(TaskFailedError);
    expect(failure.cause).toBeInstanceOf(PaymentDeclined);
    const declined = failure.cause as PaymentDeclined;
    expect(declined).toMatchObject({ name: 'PaymentDeclined', message: 'declined 42', amount: 42, at: new Date(0) });
    expect(declined.at).toBeInstanceOf(Date);
    expect(declined.stack).toContain('fixtures/app.js');
    expect(failure.remote).toMatchObject({ name: 'PaymentDeclined', type: 'PaymentDeclined', message: 'declined 42' });
  });
});
