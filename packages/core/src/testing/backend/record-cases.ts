/** Backend conformance: storing, reading, expiring and forgetting records. */
import { untilPast } from '../wait';
import { entry, taskRecord, type OpenBackend } from './harness';

/** Defines the record cases. */
export function recordCases(open: OpenBackend): void {
  it('stores a record and reads back every field, with superjson values intact', async () => {
    const { backend } = await open();
    const result = {
      when: new Date(0),
      tags: new Map([['big', 2n ** 70n]]),
      seen: new Set(['a']),
      nothing: undefined,
      list: [1, undefined],
    };
    const success = taskRecord('ok', 'SUCCESS', { result, retries: 2, meta: { hostname: 'h1' } });
    const failure = taskRecord('bad', 'FAILURE', {
      error: { name: 'TypeError', message: 'boom', stack: 'TypeError: boom\n    at x', code: 'E_BOOM' },
    });
    await backend.store([entry(success), entry(failure)]);
    expect(await backend.get('ok')).toEqual(success);
    const read = await backend.get('ok');
    expect((read?.result as typeof result).when).toBeInstanceOf(Date);
    expect((read?.result as typeof result).tags.get('big')).toBe(2n ** 70n);
    expect(Object.keys(read?.result as object)).toContain('nothing');
    expect(await backend.get('bad')).toEqual(failure);
  });

  it('stores a result given as JSON text (resultJson) as it is: read, awaited, batched, it is the value', async () => {
    const { backend } = await open();
    const result = { sum: 3, parts: [1, 2], label: 'a "quoted" \u00e9 text' };
    const waiting = backend.waitFor('json');
    const record = taskRecord('json', 'SUCCESS', { retries: 1, meta: { at: new Date(5) } });
    await backend.store([
      entry(taskRecord('json', 'STARTED')),
      { ...entry(record), resultJson: JSON.stringify(result) },
    ]);
    expect(await backend.get('json')).toEqual({ ...record, result });
    expect(await waiting).toEqual({ ...record, result });
    expect(((await backend.get('json'))?.meta as { at: Date }).at).toBeInstanceOf(Date);
  });

  it('get returns undefined for an id never stored; getMany answers in the order of the ids', async () => {
    const { backend } = await open();
    expect(await backend.get('never')).toBeUndefined();
    await backend.store([entry(taskRecord('a', 'SUCCESS', { result: 1 })), entry(taskRecord('b', 'STARTED'))]);
    const many = await backend.getMany(['b', 'never', 'a']);
    expect(many.map((record) => record?.state)).toEqual(['STARTED', undefined, 'SUCCESS']);
    expect(await backend.getMany([])).toEqual([]);
  });

  it('applies entries in order, so the last record of an id wins', async () => {
    const { backend } = await open();
    await backend.store([entry(taskRecord('a', 'STARTED')), entry(taskRecord('a', 'SUCCESS', { result: 'done' }))]);
    expect(await backend.get('a')).toMatchObject({ state: 'SUCCESS', result: 'done' });
    await backend.store([entry(taskRecord('b', 'STARTED'))]);
    await backend.store([entry(taskRecord('b', 'PROGRESS', { meta: { step: 2 } }))]);
    expect(await backend.get('b')).toMatchObject({ state: 'PROGRESS', meta: { step: 2 } });
  });

  it('never replaces a final record with one of a state in between (a write that came late)', async () => {
    const { backend } = await open();
    await backend.store([entry(taskRecord('a', 'SUCCESS', { result: 'done' }))]);
    await backend.store([entry(taskRecord('a', 'STARTED'))]); // alone: the store's one-record path
    await backend.store([entry(taskRecord('a', 'PROGRESS')), entry(taskRecord('other', 'STARTED'))]);
    expect(await backend.get('a')).toMatchObject({ state: 'SUCCESS', result: 'done' });
    expect(await backend.get('other')).toMatchObject({ state: 'STARTED' });
    // A final record replaces another (a revoke after the fact, a later delivery's outcome)...
    await backend.store([entry(taskRecord('a', 'FAILURE', { error: { name: 'Error', message: 'late' } }))]);
    expect(await backend.get('a')).toMatchObject({ state: 'FAILURE' });
    // ...and once forgotten (a retry from the failed-task registry), a new run starts over.
    await backend.forget(['a']);
    await backend.store([entry(taskRecord('a', 'STARTED'))]);
    expect(await backend.get('a')).toMatchObject({ state: 'STARTED' });
  });

  it('expires a record once its ttl has passed, leaving longer-lived ones', async () => {
    const { backend } = await open();
    await backend.store([entry(taskRecord('short', 'SUCCESS'), 150), entry(taskRecord('long', 'SUCCESS'))]);
    const storedAt = Date.now();
    expect(await backend.get('short')).toBeDefined();
    await untilPast(storedAt + 200);
    expect(await backend.get('short')).toBeUndefined();
    expect(await backend.getMany(['short', 'long'])).toEqual([undefined, expect.objectContaining({ id: 'long' })]);
  });

  it('forget deletes records; unknown ids are ignored', async () => {
    const { backend } = await open();
    await backend.store(['a', 'b', 'c'].map((id) => entry(taskRecord(id, 'SUCCESS'))));
    await backend.forget(['a', 'c', 'never']);
    expect((await backend.getMany(['a', 'b', 'c'])).map((record) => record?.id)).toEqual([undefined, 'b', undefined]);
    await backend.forget([]);
  });

  it('close resolves', async () => {
    const { backend } = await open();
    await backend.store([entry(taskRecord('a', 'SUCCESS'))]);
    await expect(backend.close()).resolves.toBeUndefined();
  });
}
