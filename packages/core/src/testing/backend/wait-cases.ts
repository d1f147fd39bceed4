/** Backend conformance: waiting for ready states, without polling. */
import { deferred } from '../wait';
import { entry, taskRecord, type OpenBackend } from './harness';

/** Defines the waitFor cases. */
export function waitCases(open: OpenBackend): void {
  it.each(['SUCCESS', 'FAILURE', 'REVOKED'])(
    'waitFor resolves with the record when %s is stored later',
    async (state) => {
      const { backend, writer } = await open();
      const waiting = backend.waitFor('t');
      const record = taskRecord('t', state, { meta: { reason: 'because' } });
      await writer.store([entry(record)]);
      await expect(waiting).resolves.toEqual(record);
    },
  );

  it('waitFor resolves when the record is stored with its completion notice addressed to this client', async () => {
    const { backend, writer, context } = await open();
    const waiting = backend.waitFor('t');
    const record = taskRecord('t', 'SUCCESS', { result: 42 });
    await writer.store([{ record, ttl: 60_000, replyTo: context.settings.clientId }]);
    await expect(waiting).resolves.toEqual(record);
  });

  it('waitFor resolves at once when the task is already ready', async () => {
    const { backend, writer } = await open();
    const record = taskRecord('done', 'FAILURE', { error: { name: 'Error', message: 'no' } });
    await writer.store([entry(record)]);
    await expect(backend.waitFor('done')).resolves.toEqual(record);
  });

  it('waitFor after forget waits for the next run: the forgotten record is not served from memory', async () => {
    const { backend, writer, context } = await open();
    const first = taskRecord('again', 'FAILURE', { error: { name: 'Error', message: 'first run' } });
    // Addressed to this client, and heard (onChange) before going on: a backend that remembers the
    // notices it heard has this one.
    let heard = Promise.resolve();
    if (backend.onChange) {
      let resolveHeard = (): void => undefined;
      heard = new Promise((resolve) => (resolveHeard = resolve));
      const stop = backend.onChange('again', () => {
        stop();
        resolveHeard();
      });
      await stop.ready;
    }
    await writer.store([{ record: first, ttl: 60_000, replyTo: context.settings.clientId }]);
    await heard;
    await expect(backend.waitFor('again')).resolves.toEqual(first);
    await backend.forget(['again']);
    const second = backend.waitFor('again');
    const rerun = taskRecord('again', 'SUCCESS', { result: 'second run' });
    await writer.store([{ record: rerun, ttl: 60_000, replyTo: context.settings.clientId }]);
    await expect(second).resolves.toEqual(rerun);
  });

  it('waitFor ignores states that are not ready', async () => {
    const { backend, writer } = await open();
    const waiting = backend.waitFor('t');
    for (const state of ['STARTED', 'PROGRESS', 'RETRY']) await writer.store([entry(taskRecord('t', state))]);
    await writer.store([entry(taskRecord('t', 'SUCCESS', { result: 'last' }))]);
    await expect(waiting).resolves.toMatchObject({ state: 'SUCCESS', result: 'last' });
  });

  it('waitFor rejects with the signal reason when the signal aborts, or at once when it already has', async () => {
    const { backend } = await open();
    const controller = new AbortController();
    const waiting = backend.waitFor('never', controller.signal);
    const reason = new Error('gave up');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(backend.waitFor('never', controller.signal)).rejects.toBe(reason);
  });

  it('waitFor rejects with the rejection of options.until (a failed publish); resolved, it ends no wait', async () => {
    const { backend, writer } = await open();
    const publish = deferred<void>();
    const waiting = backend.waitFor('lost', undefined, { until: publish.promise });
    const reason = new Error('publish failed');
    publish.reject(reason);
    await expect(waiting).rejects.toBe(reason);
    // A resolved `until` (the publish went through) does not end a wait.
    const sent = backend.waitFor('sent', undefined, { until: Promise.resolve() });
    await writer.store([entry(taskRecord('sent', 'SUCCESS', { result: 1 }))]);
    await expect(sent).resolves.toMatchObject({ result: 1 });
  });

  it('wakes every waiter of an id, and only with that id', async () => {
    const { backend, writer } = await open();
    const [x1, x2, y] = [backend.waitFor('x'), backend.waitFor('x'), backend.waitFor('y')];
    await writer.store([entry(taskRecord('x', 'SUCCESS', { result: 'x' }))]);
    await expect(Promise.all([x1, x2])).resolves.toEqual([
      expect.objectContaining({ id: 'x' }),
      expect.objectContaining({ id: 'x' }),
    ]);
    await writer.store([entry(taskRecord('y', 'REVOKED'))]);
    await expect(y).resolves.toMatchObject({ id: 'y', state: 'REVOKED' });
  });
}
