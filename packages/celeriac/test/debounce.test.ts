/**
 * Debounce: sends of a key within the window of each other collapse into one run with the last
 * send's arguments, a window after the last send; every handle gets that run's result. Bad options
 * are refused at `app.task(...)`. The broker's part is in the conformance suite; this runs the
 * sender's part (re-encoding under the waiting task's id, signed when the app signs) end to end.
 */
import { deferred } from '@celeriac/core/testing';
import { runtimeOf } from '@celeriac/core/internal';
import type { TaskOptions } from 'celeriac';
import { useApp } from './support/app';

const invalid = (option: string, code = 'CELERIAC_INVALID_OPTION') =>
  expect.objectContaining({ code, message: expect.stringContaining(option) });

describe('debounce options', () => {
  const t = useApp();

  it.each<[string, TaskOptions]>([
    ['debounce of task digest', { debounce: true as never }],
    ['debounce of task digest', { debounce: { key: (id: string) => id } as never }],
    ['debounce of task digest', { debounce: 0 }],
    ['debounce.key of task digest', { debounce: { window: '1s', key: 'user' as never } }],
    ['debounce of task digest', { debounce: '1s', unique: true }],
    ['debounce of task digest', { debounce: '1s', throttle: '1s' }],
  ])('refuses a bad option at app.task: %s', (option, options) => {
    expect(() => t.app.task('digest', () => 1, options)).toThrow(invalid(option));
  });

  it('refuses a window that is not a duration, with the duration error', () => {
    expect(() => t.app.task('digest', () => 1, { debounce: 'soon' as never })).toThrow(
      invalid('debounce of task digest', 'CELERIAC_INVALID_DURATION'),
    );
  });

  it('keys a send by the task name, or by its key function; it is due a window after it is sent, or at its eta', () => {
    const runtime = runtimeOf(t.app);
    const digest = t.app.task('digest', (_user: string) => 1, { debounce: '2s' });
    t.app.task('digest.of', (_user: string) => 1, { debounce: { window: 500, key: (user: string) => user } });
    const before = Date.now();
    const message = runtime.buildMessage('digest', ['ann'], {});
    expect(message.limits).toEqual({ task: 'digest', debounce: { key: 'digest', window: 2_000 } });
    expect(message.eta).toBeGreaterThanOrEqual(before + 2_000);
    expect(runtime.buildMessage('digest', ['ann'], { eta: before + 60_000 }).eta).toBe(before + 60_000);
    expect(runtime.buildMessage('digest.of', ['ann'], {}).limits?.debounce).toEqual({
      key: 'digest.of:ann',
      window: 500,
    });
    expect(() => runtime.buildMessage('digest.of', [7], {})).toThrow(invalid('debounce.key of task digest.of'));
    // A send with a workflow of its own runs as it is: collapsing it would drop another's workflow.
    const linked = runtime.buildMessage('digest', ['ann'], { link: digest.s('bob') });
    expect([linked.limits, linked.eta]).toEqual([undefined, undefined]);
  });
});

describe('debounce', () => {
  const t = useApp();

  it('ten sends in the window run once with the last arguments, and every handle gets the result', async () => {
    const runs: string[] = [];
    const digest = t.app.task(
      'digest',
      (user: string) => {
        runs.push(user);
        return `digest of ${user}`;
      },
      { debounce: '1s' },
    );
    const handles = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((user) => digest.delay(user));
    await Promise.all(handles.map((handle) => handle.sent));
    expect(handles.map((handle) => handle.deduplicated)).toEqual([false, ...Array<boolean>(9).fill(true)]);
    expect(new Set(handles.map((handle) => handle.id))).toEqual(new Set([handles[0]?.id]));
    await t.startWorker();
    await expect(Promise.all(handles)).resolves.toEqual(Array<string>(10).fill('digest of j'));
    expect(runs).toEqual(['j']);
  });

  it('a send once the run started opens a new window: a second run', async () => {
    const started = deferred();
    const release = deferred();
    const runs: string[] = [];
    const digest = t.app.task(
      'digest',
      async (user: string) => {
        runs.push(user);
        if (user === 'first') {
          started.resolve();
          await release.promise;
        }
        return user;
      },
      { debounce: 50 },
    );
    await t.startWorker();
    const first = digest.delay('first');
    await started.promise;
    const second = digest.delay('second');
    await second.sent;
    expect([second.deduplicated, second.id === first.id]).toEqual([false, false]);
    release.resolve();
    await expect(Promise.all([first, second])).resolves.toEqual(['first', 'second']);
    expect(runs).toEqual(['first', 'second']);
  });

  it('closing the app right after the sends still publishes their replacements', async () => {
    const digest = t.app.task('digest', (user: string) => user, { debounce: '1m' });
    const observer = t.observer();
    const handles = [digest.delay('a'), digest.delay('b')];
    await t.app.close();
    await Promise.all(handles.map((handle) => handle.sent));
    expect(handles.map((handle) => handle.deduplicated)).toEqual([false, true]);
    await expect(observer.stats('default')).resolves.toMatchObject({ delayed: 1, ready: 0 });
  });

  it('each key has a window of its own', async () => {
    const notify = t.app.task('notify', (user: string, text: string) => `${user}: ${text}`, {
      debounce: { window: '1s', key: (user: string) => user },
    });
    const handles = [notify.delay('ann', '1'), notify.delay('bob', '1'), notify.delay('ann', '2')];
    await Promise.all(handles.map((handle) => handle.sent));
    expect(handles.map((handle) => handle.deduplicated)).toEqual([false, false, true]);
    await t.startWorker();
    await expect(Promise.all(handles)).resolves.toEqual(['ann: 2', 'bob: 1', 'ann: 2']);
  });
});

describe('debounce with signed messages', () => {
  const t = useApp({ secret: 'debounce-test-secret' });

  it('the last send is signed for the id of the task it collapses into, and runs', async () => {
    const digest = t.app.task('digest', (user: string) => user, { debounce: '1s' });
    const handles = [digest.delay('a'), digest.delay('b')];
    await Promise.all(handles.map((handle) => handle.sent));
    await t.startWorker();
    await expect(Promise.all(handles)).resolves.toEqual(['b', 'b']);
  });
});
