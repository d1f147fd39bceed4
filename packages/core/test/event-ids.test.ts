/** Event ids order by time, then sequence, then the index of the event within its stream entry. */
import { compareEventIds, eventIdBefore } from '@celeriac/core/internal';

describe('compareEventIds', () => {
  it('orders by time, then sequence', () => {
    expect(compareEventIds('1700000000001-0', '1700000000000-5')).toBeGreaterThan(0);
    expect(compareEventIds('1700000000000-2', '1700000000000-10')).toBeLessThan(0);
    expect(compareEventIds('1700000000000-2', '1700000000000-2')).toBe(0);
  });

  it('orders the events of one entry by their index as a whole number (.10 after .9)', () => {
    expect(compareEventIds('1700000000000-0.10', '1700000000000-0.9')).toBeGreaterThan(0);
    expect(compareEventIds('1700000000000-0.1', '1700000000000-0.10')).toBeLessThan(0);
    expect(compareEventIds('1700000000000-0.3', '1700000000000-1.0')).toBeLessThan(0);
  });

  it("puts an entry's own id (a cursor) before its events", () => {
    expect(compareEventIds('1700000000000-0', '1700000000000-0.0')).toBeLessThan(0);
    expect(compareEventIds(eventIdBefore(1700000000000), '1700000000000-0.0')).toBeLessThan(0);
    expect(compareEventIds(eventIdBefore(1700000000000), '1699999999999-7.2')).toBeGreaterThan(0);
  });
});
