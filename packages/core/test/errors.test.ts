import { CeleriacError, TaskFailedError, UnknownTaskError } from '@celeriac/core';
import { reviveRemoteError, toRemoteError } from '@celeriac/core/internal';

describe('errors', () => {
  it('subclasses carry their class name and a CELERIAC_ code', () => {
    const error = new UnknownTaskError('x.y');
    expect(error).toBeInstanceOf(CeleriacError);
    expect(error).toMatchObject({ name: 'UnknownTaskError', code: 'CELERIAC_UNKNOWN_TASK', taskName: 'x.y' });
  });

  it('toRemoteError keeps name, message, stack and a string code', () => {
    const error = Object.assign(new TypeError('bad'), { code: 42 });
    expect(toRemoteError(error)).toEqual({ name: 'TypeError', message: 'bad', stack: error.stack, code: '42' });
  });

  it('toRemoteError describes thrown non-Errors', () => {
    expect(toRemoteError('text')).toEqual({ name: 'NonError', message: 'text' });
    expect(toRemoteError({ status: 500 })).toEqual({ name: 'NonError', message: '{"status":500}' });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(toRemoteError(circular)).toEqual({ name: 'NonError', message: '[object Object]' });
    expect(toRemoteError(undefined)).toEqual({ name: 'NonError', message: 'undefined' });
  });

  it('reviveRemoteError and TaskFailedError rebuild the remote error', () => {
    const remote = { name: 'DbError', message: 'deadlock', stack: 'DbError: deadlock\n    at q', code: 'E_DEADLOCK' };
    expect(reviveRemoteError(remote)).toMatchObject(remote);
    const failed = new TaskFailedError('id-1', undefined, remote);
    expect(failed.message).toBe('Task id-1 failed: DbError: deadlock');
    expect(failed.cause).toMatchObject(remote);
  });
});
