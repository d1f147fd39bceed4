/** Backend conformance: waiting for ready states (without polling) and change listeners. */
import type { StoreEntry, TaskRecord } from '../../backend';
import { deferred } from '../wait';
import { entry, taskRecord, type BackendConformanceOptions, type OpenBackend } from './harness';

/** Defines the waitFor and onChange cases. */
export function waitCases(open: OpenBackend, options: BackendConformanceOptions): void {
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

  if (options.onChange === false) {
    it('declares no onChange', async () => {
      const { backend } = await open();
      expect(backend.onChange).toBeUndefined();
    });
    return;
  }

  it('onChange reports each stored state change of an id in order (several in a store too) until ended', async () => {
    const { backend, writer: peer, context } = await open();
    // The records name this client as the sender (replyTo), as a worker does for the tasks a client sent.
    const writer = {
      store: (entries: StoreEntry[]) =>
        peer.store(entries.map((item) => ({ ...item, replyTo: context.settings.clientId }))),
    };
    expect(typeof backend.onChange).toBe('function');
    const seenByA: TaskRecord[] = [];
    const seenByB: TaskRecord[] = [];
    const aSawThree = deferred();
    const bSawFour = deferred();
    const unsubscribeA = backend.onChange!('t', (record) => {
      seenByA.push(record);
      if (seenByA.length === 3) aSawThree.resolve();
    });
    const unsubscribeB = backend.onChange!('t', (record) => {
      seenByB.push(record);
      if (seenByB.length === 4) bSawFour.resolve();
    });
    await Promise.all([unsubscribeA.ready, unsubscribeB.ready]);
    await writer.store([entry(taskRecord('other', 'SUCCESS'))]);
    await writer.store([entry(taskRecord('t', 'STARTED')), entry(taskRecord('t', 'PROGRESS', { meta: { done: 1 } }))]);
    await writer.store([entry(taskRecord('t', 'PROGRESS', { meta: { done: 2 } }))]);
    await aSawThree.promise;
    unsubscribeA();
    await writer.store([entry(taskRecord('t', 'SUCCESS', { result: 3 }))]);
    await bSawFour.promise;
    unsubscribeB();
    expect(seenByA.map((record) => [record.state, record.meta])).toEqual([
      ['STARTED', undefined],
      ['PROGRESS', { done: 1 }],
      ['PROGRESS', { done: 2 }],
    ]);
    expect(seenByB.map((record) => record.state)).toEqual(['STARTED', 'PROGRESS', 'PROGRESS', 'SUCCESS']);
    expect(seenByB[3]).toMatchObject({ id: 't', result: 3 });
  });
}
