import { BrokerUnavailableError, Celeriac } from 'celeriac';
import { Codec, MemoryBackend, MemoryBroker, type TaskRecord, type WaitOptions } from '@celeriac/core';
import { conformanceBrokerSettings } from '@celeriac/core/testing';

/** A broker that is down: every publish fails. */
class DownBroker extends MemoryBroker {
  override async publish(): Promise<never> {
    throw new BrokerUnavailableError('the broker is down');
  }
}

/** A backend of its own that knows nothing of WaitOptions.until (it predates it). */
class UntilBlindBackend extends MemoryBackend {
  override waitFor(id: string, signal?: AbortSignal, options: WaitOptions = {}): Promise<TaskRecord> {
    const { until: _ignored, ...rest } = options;
    return super.waitFor(id, signal, rest);
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

  it('rejects the result also with a backend that ignores WaitOptions.until', async () => {
    const own = new Celeriac({
      broker: new DownBroker(conformanceBrokerSettings()),
      backend: new UntilBlindBackend(new Codec()),
    });
    try {
      const add = own.task('add', (a: number, b: number) => a + b);
      await expect(add.delay(1, 2)).rejects.toBeInstanceOf(BrokerUnavailableError);
      await expect(add.delay(1, 2).get({ timeout: '5s' })).rejects.toBeInstanceOf(BrokerUnavailableError);
    } finally {
      await own.close();
    }
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
