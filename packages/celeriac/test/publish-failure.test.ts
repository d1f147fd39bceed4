import { BrokerUnavailableError, Celeriac } from 'celeriac';
import { MemoryBroker } from '@celeriac/core';
import { conformanceBrokerSettings } from '@celeriac/core/testing';

/** A broker that is down: every publish fails. */
class DownBroker extends MemoryBroker {
  override async publish(): Promise<never> {
    throw new BrokerUnavailableError('the broker is down');
  }
}

describe('a publish that fails', () => {
  let app: Celeriac;
  beforeEach(() => {
    app = new Celeriac({ broker: new DownBroker(conformanceBrokerSettings()) });
  });
  afterEach(() => app.close());

  it('rejects both sent and the result with the broker error', async () => {
    const add = app.task('add', (a: number, b: number) => a + b);
    const result = add.delay(1, 2);
    await expect(result.sent).rejects.toBeInstanceOf(BrokerUnavailableError);
    await expect(result).rejects.toMatchObject({ code: 'CELERIAC_BROKER_UNAVAILABLE' });
    await expect(result.get({ timeout: '5s' })).rejects.toThrow('the broker is down');
  });

  it('is never an unhandled rejection, even when nobody looks at the result', async () => {
    const add = app.task('add', (a: number, b: number) => a + b);
    add.delay(1, 2);
    const awaitedLater = add.delay(3, 4);
    await app.close();
    // Let Node report unhandled rejections now; jest fails the test if there is one.
    await new Promise((resolve) => setImmediate(resolve));
    await expect(awaitedLater).rejects.toBeInstanceOf(BrokerUnavailableError);
  });
});
