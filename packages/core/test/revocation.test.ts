import { TERMINATE_GRACE_MS, terminationOf } from '@celeriac/core/internal';

describe('terminationOf', () => {
  it('reads the signal and grace a revocation carries', () => {
    expect(terminationOf({ id: 'a', terminate: true, signal: 'SIGKILL', grace: 0 })).toEqual({
      signal: 'SIGKILL',
      graceMs: 0,
    });
    expect(terminationOf({ id: 'a', terminate: true, signal: 'SIGTERM', grace: 2_500 })).toEqual({
      signal: 'SIGTERM',
      graceMs: 2_500,
    });
  });

  it('defaults to SIGTERM after the default grace, also for values a worker cannot use (read from Redis)', () => {
    expect(terminationOf({ id: 'a', terminate: true })).toEqual({ signal: 'SIGTERM', graceMs: TERMINATE_GRACE_MS });
    expect(terminationOf({ id: 'a', terminate: true, signal: 'SIGHUP' as never, grace: -5 })).toEqual({
      signal: 'SIGTERM',
      graceMs: TERMINATE_GRACE_MS,
    });
    expect(terminationOf({ id: 'a', terminate: true, grace: 'soon' as never })).toEqual({
      signal: 'SIGTERM',
      graceMs: TERMINATE_GRACE_MS,
    });
  });
});
