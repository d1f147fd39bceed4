/** Backend conformance: change listeners (flag `changes`) and many-task waits (flag `waitForMany`). */
import type { StoreEntry, TaskRecord } from '../../backend';
import { backendSupports } from '../../supports';
import { deferred } from '../wait';
import { entry, taskRecord, type OpenBackend } from './harness';

/** Defines the onChange cases. */
export function changeCases(open: OpenBackend): void {
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

/** Without `changes`: the backend has no onChange. */
export function changeLack(open: OpenBackend): void {
  it('has no onChange', async () => {
    const { backend } = await open();
    expect(backend.onChange).toBeUndefined();
  });
}

/** Defines the waitForMany cases. */
export function manyCases(open: OpenBackend): void {
  it('waitForMany resolves with the records in the order of the ids once all are ready', async () => {
    const { backend, writer, context } = await open();
    if (!backendSupports(backend, 'waitForMany')) throw new Error('runs only on a backend that declares waitForMany');
    const mine = (record: TaskRecord): StoreEntry => ({ ...entry(record), replyTo: context.settings.clientId });
    const waiting = backend.waitForMany(['a', 'b'], undefined, { sentHere: true, sentAt: Date.now() });
    await writer.store([mine(taskRecord('b', 'SUCCESS', { result: 2 }))]);
    await writer.store([mine(taskRecord('a', 'SUCCESS', { result: 1 }))]);
    const records = await waiting;
    expect(records.map((record) => record?.result)).toEqual([1, 2]);
  });
}

/** Without `waitForMany`: callers wait a task at a time. */
export function manyLack(open: OpenBackend): void {
  it('has no waitForMany', async () => {
    const { backend } = await open();
    expect(backend.waitForMany).toBeUndefined();
  });
}
