import { MaxRetriesExceededError, type TaskOptions } from '@celeriac/core';
import { RetryRequest } from '@celeriac/core/internal';
import { backoffDelay, decideRetry, type RetryInput } from '../src/retry-policy';

describe('backoffDelay', () => {
  const delays = (options: TaskOptions, attempts: number, random?: () => number) =>
    Array.from({ length: attempts }, (_, index) => backoffDelay(options, index + 1, random));

  it('waits retryDelay (1 s by default) each time with fixed backoff', () => {
    expect(delays({}, 3)).toEqual([1_000, 1_000, 1_000]);
    expect(delays({ retryDelay: '250ms', backoff: 'fixed' }, 3)).toEqual([250, 250, 250]);
  });

  it('doubles the delay on each retry with exponential backoff, up to backoffMax', () => {
    expect(delays({ retryDelay: 100, backoff: 'exponential' }, 5)).toEqual([100, 200, 400, 800, 1_600]);
    expect(delays({ retryDelay: 100, backoff: 'exponential', backoffMax: 300 }, 5)).toEqual([100, 200, 300, 300, 300]);
    expect(delays({ retryDelay: '1m', backoff: 'exponential' }, 12).at(-1)).toBe(600_000);
  });

  it('caps a fixed delay too', () => {
    expect(backoffDelay({ retryDelay: '1h', backoffMax: '1m' }, 1)).toBe(60_000);
  });

  it('with jitter, picks a delay between 0 and the computed one', () => {
    const options: TaskOptions = { retryDelay: 100, backoff: 'exponential', jitter: true };
    expect(delays(options, 3, () => 0.5)).toEqual([50, 100, 200]);
    expect(backoffDelay(options, 3, () => 0)).toBe(0);
    expect(backoffDelay(options, 3, () => 0.999)).toBe(400);
  });

  it('refuses a malformed retryDelay, naming it', () => {
    expect(() => backoffDelay({ retryDelay: 'soon' as never }, 1)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('retryDelay') }),
    );
  });
});

describe('decideRetry', () => {
  class Transient extends Error {
    override name = 'Transient';
  }
  class VeryTransient extends Transient {}

  const input = (error: unknown, fields: Partial<RetryInput> = {}): RetryInput => ({
    error,
    taskName: 'jobs.sync',
    options: { retryDelay: 10, backoff: 'exponential' },
    retries: 0,
    maxRetries: 3,
    ...fields,
  });

  it('retries any error while retries remain, with the backoff of the next attempt', () => {
    const error = new Error('boom');
    expect(decideRetry(input(error))).toEqual({ retry: true, delay: 10, error });
    expect(decideRetry(input(error, { retries: 2 }))).toEqual({ retry: true, delay: 40, error });
    expect(decideRetry(input(error, { retries: 3 }))).toEqual({ retry: false, error });
    expect(decideRetry(input(error, { maxRetries: 0 }))).toEqual({ retry: false, error });
  });

  it('never retries a final error (e.g. a result that cannot be stored)', () => {
    expect(decideRetry(input(new Error('final'), { final: true }))).toMatchObject({ retry: false });
  });

  it('with autoretryFor, retries errors of the listed classes (and subclasses) or names only', () => {
    const byClass = { retryDelay: 10, autoretryFor: [Transient] };
    expect(decideRetry(input(new VeryTransient('x'), { options: byClass }))).toMatchObject({ retry: true });
    expect(decideRetry(input(new TypeError('x'), { options: byClass }))).toMatchObject({ retry: false });
    const byName = { retryDelay: 10, autoretryFor: ['Transient', 'AbortError'] };
    expect(decideRetry(input(new Transient('x'), { options: byName }))).toMatchObject({ retry: true });
    expect(decideRetry(input(new Error('x'), { options: byName }))).toMatchObject({ retry: false });
    expect(decideRetry(input('Transient', { options: byName }))).toMatchObject({ retry: false });
  });

  it('honours currentTask().retry(): its countdown, else the backoff, whatever autoretryFor says', () => {
    const options = { retryDelay: 10, autoretryFor: [Transient] };
    const request = new RetryRequest({ countdown: '2s' });
    expect(decideRetry(input(request, { options }))).toEqual({ retry: true, delay: 2_000, error: request });
    const cause = new Error('upstream');
    expect(decideRetry(input(new RetryRequest({ cause }), { options, retries: 1 }))).toEqual({
      retry: true,
      delay: 10,
      error: cause,
    });
  });

  it('fails a retry() past the limit with MaxRetriesExceededError, or with its cause', () => {
    const exhausted = decideRetry(input(new RetryRequest({}), { retries: 3 }));
    expect(exhausted.retry).toBe(false);
    expect(exhausted.error).toBeInstanceOf(MaxRetriesExceededError);
    expect(exhausted.error).toMatchObject({ message: expect.stringContaining('jobs.sync') });
    const cause = new Error('still down');
    expect(decideRetry(input(new RetryRequest({ cause }), { retries: 3 }))).toEqual({ retry: false, error: cause });
  });
});
