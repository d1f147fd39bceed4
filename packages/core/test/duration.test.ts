import { toMilliseconds } from '@celeriac/core/internal';

describe('toMilliseconds', () => {
  it.each([
    [250, 250],
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1_500],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
  ] as const)('reads %p as %p ms', (input, expected) => {
    expect(toMilliseconds(input)).toBe(expected);
  });

  it.each([-1, Number.NaN, Infinity, '10 parsecs', '', 's'])('rejects %p with a typed error', (input) => {
    expect(() => toMilliseconds(input as never, 'countdown')).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_DURATION', message: expect.stringContaining('countdown') }),
    );
  });
});
