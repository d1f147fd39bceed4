/**
 * Celery's result records without Redis: what Python reads (Celery's fields, plain JSON) and what
 * Celeriac reads back (the record it stored, value for value, from the `x_celeriac` field beside).
 */
import { Codec, type TaskRecord } from '@celeriac/core';
import { fromCeleryMeta, toCeleryMeta } from '../src/protocol/result';

const codec = new Codec();

/** The meta as Python's json module reads it. */
function asPython(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

describe('Celery result records', () => {
  it('writes a failure as exc_type / exc_message / exc_module, a JavaScript TypeError as the built-in', () => {
    const meta = asPython(
      toCeleryMeta(
        { id: 'a', state: 'FAILURE', error: { name: 'TypeError', message: 'bad', stack: 'TypeError: bad' }, date: 0 },
        codec,
      ),
    );
    expect(meta).toMatchObject({
      status: 'FAILURE',
      result: { exc_type: 'TypeError', exc_message: ['bad'], exc_module: 'builtins' },
      traceback: 'TypeError: bad',
      children: [],
      date_done: '1970-01-01T00:00:00.000',
      task_id: 'a',
    });
  });

  it('splices a result given as JSON text', () => {
    const text = toCeleryMeta({ id: 'a', state: 'SUCCESS', date: 0 }, codec, '{"n":[1,2]}');
    expect(JSON.parse(text)).toMatchObject({ status: 'SUCCESS', result: { n: [1, 2] } });
    expect(fromCeleryMeta('a', text, codec)).toEqual({ id: 'a', state: 'SUCCESS', result: { n: [1, 2] }, date: 0 });
  });

  it('gives Python plain JSON for values richer than JSON, and Celeriac the values themselves', () => {
    const result = { when: new Date(5), tags: new Map([['big', 2n ** 70n]]), seen: new Set(['a']), gone: undefined };
    const record: TaskRecord = { id: 'a', state: 'SUCCESS', task: 'proj.add', result, retries: 2, date: 7 };
    const text = toCeleryMeta({ ...record, meta: { at: new Date(9) } }, codec);
    expect(asPython(text)).toMatchObject({
      status: 'SUCCESS',
      result: { when: '1970-01-01T00:00:00.005Z', tags: [['big', '1180591620717411303424']], seen: ['a'], gone: null },
      name: 'proj.add',
      retries: 2,
    });
    const read = fromCeleryMeta('a', text, codec);
    expect(read).toEqual({ ...record, meta: { at: new Date(9) } });
    expect((read.result as typeof result).tags.get('big')).toBe(2n ** 70n);
    expect(Object.keys(read.result as object)).toContain('gone');
  });

  it("reads back a Celeriac error's own name and fields, which Celery's exception does not hold", () => {
    const error = { name: 'TimeLimitExceededError', message: 'too long', stack: 'at x', code: 'E_LATE' };
    const record: TaskRecord = { id: 'a', state: 'FAILURE', error, date: 0 };
    const text = toCeleryMeta(record, codec);
    expect(asPython(text)).toMatchObject({
      result: { exc_type: 'TimeLimitExceeded', exc_module: 'billiard.exceptions' },
      traceback: 'at x',
    });
    expect(fromCeleryMeta('a', text, codec)).toEqual(record);
  });

  it('reads back a revocation without an error, a state without metadata, and a date Celery does not keep', () => {
    const revoked: TaskRecord = { id: 'a', state: 'REVOKED', meta: { reason: 'because' }, date: 3 };
    const text = toCeleryMeta(revoked, codec);
    expect(asPython(text).result).toMatchObject({ exc_type: 'TaskRevokedError', exc_message: ['because'] });
    expect(fromCeleryMeta('a', text, codec)).toEqual(revoked);
    const progress: TaskRecord = { id: 'b', state: 'PROGRESS', meta: { done: 1 }, date: 4 };
    const written = toCeleryMeta(progress, codec);
    expect(asPython(written)).toMatchObject({ status: 'PROGRESS', result: { done: 1 }, date_done: null });
    expect(fromCeleryMeta('b', written, codec)).toEqual(progress);
    const started = toCeleryMeta({ id: 'c', state: 'STARTED', date: 5 }, codec);
    expect(asPython(started)).toMatchObject({ status: 'STARTED', result: null });
    expect(fromCeleryMeta('c', started, codec)).toStrictEqual({ id: 'c', state: 'STARTED', date: 5 });
  });

  it('writes a Buffer as kombu 5.2 writes bytes, as text', () => {
    const text = toCeleryMeta({ id: 'a', state: 'SUCCESS', result: { raw: Buffer.from('hi') }, date: 0 }, codec);
    expect(asPython(text).result).toEqual({ raw: 'hi' });
  });

  it('refuses a value the codec cannot encode with CELERIAC_SERIALIZATION', () => {
    const record: TaskRecord = { id: 'a', state: 'SUCCESS', result: () => 1, date: 0 };
    expect(() => toCeleryMeta(record, codec)).toThrow(expect.objectContaining({ code: 'CELERIAC_SERIALIZATION' }));
  });

  it("reads Python's failure as a remote error with its type, and a naive date_done as UTC", () => {
    const text = JSON.stringify({
      status: 'FAILURE',
      result: { exc_type: 'ValueError', exc_message: ['no'], exc_module: 'builtins' },
      traceback: 'Traceback ...',
      date_done: '2026-11-26T08:00:00.123456',
    });
    expect(fromCeleryMeta('a', text, codec)).toEqual({
      id: 'a',
      state: 'FAILURE',
      error: { name: 'ValueError', message: 'no', stack: 'Traceback ...' },
      date: Date.parse('2026-11-26T08:00:00.123Z'),
    });
  });

  it("reads the name and retries Python writes with result_extended, and kombu's type tags", () => {
    const text = JSON.stringify({
      status: 'SUCCESS',
      result: { at: { __type__: 'datetime', __value__: '2026-11-26T08:00:00' } },
      date_done: '2026-11-26T08:00:01',
      name: 'proj.tasks.add',
      retries: 1,
      args: [2, 3],
    });
    expect(fromCeleryMeta('a', text, codec)).toEqual({
      id: 'a',
      state: 'SUCCESS',
      task: 'proj.tasks.add',
      retries: 1,
      result: { at: new Date('2026-11-26T08:00:00Z') },
      date: Date.parse('2026-11-26T08:00:01Z'),
    });
  });

  it('refuses a pickled result with CELERIAC_UNSUPPORTED_CONTENT', () => {
    expect(() => fromCeleryMeta('a', '\x80\x04\x95', codec)).toThrow(
      expect.objectContaining({ code: 'CELERIAC_UNSUPPORTED_CONTENT' }),
    );
  });
});
