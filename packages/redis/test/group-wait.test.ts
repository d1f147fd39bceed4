/**
 * A group this client sent is awaited as one wait (`RedisBackend.waitForMany`): the values in member
 * order, a failure ending it at once, a timeout, and reads for the notices it may have missed.
 */
import { captureLogs, RedisFixture } from '@celeriac/test-support';
import { group, TaskFailedError, TimeoutError } from 'celeriac';

describe('awaiting a group on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('group-wait')));
  afterEach(() => fixture.cleanup());

  function tasks() {
    const app = fixture.app();
    const double = app.task('wait.double', (n: number) => n * 2);
    const failOn = app.task('wait.failOn', (n: number, bad: number) => {
      if (n === bad) throw new Error(`member ${n} failed`);
      return n;
    });
    const never = app.task('wait.never', () => new Promise<void>(() => undefined));
    return { app, double, failOn, never };
  }

  it('resolves with every value in member order', async () => {
    const { app, double } = tasks();
    await app.worker({ concurrency: 20 }).start();
    const result = group(Array.from({ length: 500 }, (_, i) => double.s(i))).applyAsync();
    await expect(result.get({ timeout: 20_000 })).resolves.toEqual(Array.from({ length: 500 }, (_, i) => i * 2));
    // The member handles, made on first use, have the same ids and values.
    expect(result.results[499]?.id).toBe(`${result.id}:499`);
    await expect(result.results[7]).resolves.toBe(14);
  });

  it('a failed member rejects the group; with propagate: false it takes its place in the list', async () => {
    const { app, failOn } = tasks();
    await app.worker({ concurrency: 4, logger: captureLogs().logger }).start(); // the failure is expected
    const result = group(Array.from({ length: 20 }, (_, i) => failOn.s(i, 13))).applyAsync();
    await expect(result).rejects.toThrow(TaskFailedError);
    const values = await result.get({ propagate: false, timeout: 10_000 });
    expect(values[13]).toBeInstanceOf(TaskFailedError);
    expect((values[13] as TaskFailedError).taskId).toBe(`${result.id}:13`);
    expect(values.filter((value) => typeof value === 'number')).toHaveLength(19);
  });

  it('ends with a TimeoutError when the members do not finish in time', async () => {
    const { never } = tasks();
    const result = group([never.s(), never.s()]).applyAsync();
    await result.sent;
    await expect(result.get({ timeout: 50 })).rejects.toThrow(TimeoutError);
  });

  it('reads the results whose notices came before it listened', async () => {
    const { double } = tasks();
    // Sent while this app listens to nothing: every notice is published before anyone hears it.
    const result = group(Array.from({ length: 30 }, (_, i) => double.s(i))).applyAsync();
    await result.sent;
    const other = fixture.app();
    other.task('wait.double', (n: number) => n * 2);
    await other.worker({ concurrency: 5 }).start();
    await other.groupResult(result.id, 30).get({ timeout: 10_000 }); // all have finished now
    await expect(result.get({ timeout: 10_000 })).resolves.toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
  });
});
