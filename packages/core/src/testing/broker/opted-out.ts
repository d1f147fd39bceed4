/**
 * Broker conformance for what a transport does not declare: one case each, checking that the lack
 * is real and that an app on the broker refuses the options that would need it, at once and by name.
 */
import { CeleriacCore } from '../../app';
import type { Broker } from '../../broker';
import { Codec } from '../../codec';
import type { CeleriacOptions } from '../../options';
import { MemoryBackend } from '../../memory/memory-backend';
import { envelope, ids, QUEUE, type OpenBroker } from './harness';

const UNSUPPORTED = { code: 'CELERIAC_UNSUPPORTED_BY_TRANSPORT' };

/** The apps the running case made, closed after it. */
const made: CeleriacCore[] = [];

/** An app on `broker` (results in memory); closed after the case, which also closes the broker. */
function appOn(broker: Broker, options: Omit<CeleriacOptions, 'broker' | 'backend'> = {}): CeleriacCore {
  const app = new CeleriacCore({ ...options, broker, backend: new MemoryBackend(new Codec()) });
  made.push(app);
  return app;
}

/** Closes the apps a case made; each opted-out block registers it. */
function closingApps(): void {
  afterEach(async () => {
    await Promise.all(made.splice(0).map((app) => app.close()));
  });
}

/** Without `flowControl`: rate, concurrency and throttle are refused at registration, run-time rates too. */
export function flowControlLack(open: OpenBroker): void {
  closingApps();
  it('refuses rateLimit, concurrency and throttle when the task is registered, and run-time rates', async () => {
    const { broker } = await open();
    const app = appOn(broker);
    expect(() => app.task('t.rate', () => 1, { rateLimit: '1/s' })).toThrow(expect.objectContaining(UNSUPPORTED));
    expect(() => app.task('t.slots', () => 1, { concurrency: 1 })).toThrow(expect.objectContaining(UNSUPPORTED));
    expect(() => app.task('t.throttle', () => 1, { throttle: '1s' })).toThrow(expect.objectContaining(UNSUPPORTED));
    await expect(app.control.rateLimit('t.rate', '1/s')).rejects.toMatchObject(UNSUPPORTED);
  });
}

/** Without `unique`. */
export function uniqueLack(open: OpenBroker): void {
  closingApps();
  it('refuses unique when the task is registered', async () => {
    const { broker } = await open();
    expect(() => appOn(broker).task('t.unique', () => 1, { unique: true })).toThrow(
      expect.objectContaining(UNSUPPORTED),
    );
  });
}

/** Without `debounce`. */
export function debounceLack(open: OpenBroker): void {
  closingApps();
  it('refuses debounce when the task is registered', async () => {
    const { broker } = await open();
    expect(() => appOn(broker).task('t.debounce', () => 1, { debounce: '1s' })).toThrow(
      expect.objectContaining(UNSUPPORTED),
    );
  });
}

/** Without `pause`. */
export function pauseLack(open: OpenBroker): void {
  closingApps();
  it('app.queues.pause and resume reject, and no queue is listed as paused', async () => {
    const { broker } = await open();
    const app = appOn(broker);
    await expect(app.queues.pause(QUEUE)).rejects.toMatchObject(UNSUPPORTED);
    await expect(app.queues.resume(QUEUE)).rejects.toMatchObject(UNSUPPORTED);
    await expect(app.queues.isPaused(QUEUE)).resolves.toBe(false);
  });
}

/** Without `failedRegistry`. */
export function failedRegistryLack(open: OpenBroker): void {
  closingApps();
  it('refuses failedTtl and failedLimit when the app is made; app.failed says it keeps none', async () => {
    const { broker } = await open();
    expect(() => appOn(broker, { failedTtl: '1d' })).toThrow(expect.objectContaining(UNSUPPORTED));
    expect(() => appOn(broker, { failedLimit: 10 })).toThrow(expect.objectContaining(UNSUPPORTED));
    await expect(appOn(broker).failed.list()).rejects.toMatchObject({ code: 'CELERIAC_NO_FAILED_REGISTRY' });
  });
}

/** Without `remoteControl`. */
export function remoteControlLack(open: OpenBroker): void {
  closingApps();
  it('app.control has no channel to send on', async () => {
    const { broker } = await open();
    await expect(Promise.resolve().then(() => appOn(broker).control.ping())).rejects.toMatchObject({
      code: 'CELERIAC_INVALID_STATE',
    });
  });
}

/** With delivery counts other than `'exact'`. */
export function deliveryCountLack(open: OpenBroker): void {
  closingApps();
  it('refuses maxDeliveries when the app is made', async () => {
    const { broker } = await open();
    expect(() => appOn(broker, { maxDeliveries: 3 })).toThrow(expect.objectContaining(UNSUPPORTED));
  });
}

/** Without `priorities`: a queue is first in, first out whatever the priority. */
export function priorityLack(open: OpenBroker): void {
  closingApps();
  it('reserves first in, first out whatever the priority', async () => {
    const { broker } = await open();
    await broker.publish([envelope('low', { priority: 0 }), envelope('high', { priority: 9 })]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['low', 'high']);
  });
}

/** Without `'replicated'` durability. */
export function replicationLack(open: OpenBroker): void {
  closingApps();
  it("refuses durability: 'replicated' when the app is made", async () => {
    const { broker } = await open();
    expect(() => appOn(broker, { durability: 'replicated' })).toThrow(expect.objectContaining(UNSUPPORTED));
  });
}

/** With kombu's priority steps: 0 is taken first, as Celery orders them. */
export function kombuPriorityLack(open: OpenBroker): void {
  closingApps();
  it("reserves priority 0 before 9 (kombu's steps, as Celery orders them)", async () => {
    const { broker } = await open();
    await broker.publish([envelope('nine', { priority: 9 }), envelope('zero', { priority: 0 })]);
    expect(ids(await broker.reserve([QUEUE], 10))).toEqual(['zero', 'nine']);
  });
}
