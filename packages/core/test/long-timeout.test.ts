import { MAX_TIMER_DELAY, setLongTimeout } from '@celeriac/core/internal';

describe('setLongTimeout', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits a delay past setTimeout’s 2^31-1 ms limit instead of firing at once', () => {
    const fired = jest.fn();
    const thirtyDays = 30 * 86_400_000;
    setLongTimeout(fired, thirtyDays);
    jest.advanceTimersByTime(1_000);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(MAX_TIMER_DELAY);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(thirtyDays - MAX_TIMER_DELAY - 1_001);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('fires a short delay once, on time', () => {
    const fired = jest.fn();
    setLongTimeout(fired, 100);
    jest.advanceTimersByTime(99);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    jest.advanceTimersByTime(10_000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('is cleared in any chunk', () => {
    const fired = jest.fn();
    const timer = setLongTimeout(fired, 3 * MAX_TIMER_DELAY);
    jest.advanceTimersByTime(MAX_TIMER_DELAY + 5);
    timer.clear();
    jest.advanceTimersByTime(3 * MAX_TIMER_DELAY);
    expect(fired).not.toHaveBeenCalled();
  });

  it('never fires for an infinite delay', () => {
    const fired = jest.fn();
    setLongTimeout(fired, Infinity);
    jest.advanceTimersByTime(10 * MAX_TIMER_DELAY);
    expect(fired).not.toHaveBeenCalled();
  });
});
