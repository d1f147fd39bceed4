import { CeleriacError, TaskFailedError } from 'celeriac';
import { useApp } from './support/app';
import { PaymentDeclined } from './support/payment-declined';

class CardExpired extends PaymentDeclined {}

describe('registered error classes', () => {
  const t = useApp();

  it('reach the caller as the same class, with their own fields, through the codec', async () => {
    t.app.registerError(PaymentDeclined);
    const charge = t.app.task('billing.charge', (amount: number) => {
      throw new PaymentDeclined(`declined ${amount}`, amount, new Date(0));
    });
    await t.startWorker();
    const failure = (await charge.delay(12).catch((reason: unknown) => reason)) as TaskFailedError;
    expect(failure).toBeInstanceOf(TaskFailedError);
    expect(failure.cause).toBeInstanceOf(PaymentDeclined);
    expect(failure.cause).toMatchObject({
      name: 'PaymentDeclined',
      message: 'declined 12',
      amount: 12,
      at: new Date(0),
    });
    expect((failure.cause as PaymentDeclined).stack).toContain('error-classes.test');
    expect(failure.remote).toMatchObject({ name: 'PaymentDeclined', type: 'PaymentDeclined', message: 'declined 12' });
  });

  it('an unregistered subclass travels as its nearest registered class', async () => {
    t.app.registerError(PaymentDeclined);
    const charge = t.app.task('billing.expired', () => {
      throw new CardExpired('expired', 5, new Date(0));
    });
    await t.startWorker();
    const failure = (await charge.delay().catch((reason: unknown) => reason)) as TaskFailedError;
    expect(failure.cause).toBeInstanceOf(PaymentDeclined);
    expect(failure.cause).toMatchObject({ amount: 5 });
  });

  it('registerError refuses what is not an Error class, and a name taken by another class', () => {
    expect(() => t.app.registerError(Date as unknown as typeof Error)).toThrow(CeleriacError);
    t.app.registerError(PaymentDeclined);
    t.app.registerError(PaymentDeclined);
    class Other extends Error {}
    expect(() => t.app.registerError(Other, 'PaymentDeclined')).toThrow(/already registered/);
  });
});
