/**
 * Flow-control options: bad ones are refused at `app.task(...)` with a typed error, keys are computed
 * on the sender and travel in the message, a bad key is refused at the call, and rate limits change
 * at run time through `app.control`. What the limits do is in the broker conformance suite and the
 * end-to-end tests.
 */
import { decodeMessage } from '@celeriac/core/internal';
import { runtimeOf } from '@celeriac/core/internal';
import type { TaskOptions } from 'celeriac';
import { useApp } from './support/app';

const invalid = (option: string, code = 'CELERIAC_INVALID_OPTION') =>
  expect.objectContaining({ code, message: expect.stringContaining(option) });

describe('flow-control options', () => {
  const t = useApp();

  it.each<[string, TaskOptions]>([
    ['rateLimit of task flaky: "fast"', { rateLimit: 'fast' as never }],
    ['rateLimit of task flaky: "0/s"', { rateLimit: '0/s' }],
    ['rateLimit of task flaky: "10/fortnight"', { rateLimit: '10/fortnight' }],
    ['rateLimit.limit of task flaky', { rateLimit: { limit: 0 } }],
    ['rateLimit.burst of task flaky', { rateLimit: { limit: 5, burst: 0 } }],
    ['rateLimit.key of task flaky', { rateLimit: { limit: 5, key: 'customer' as never } }],
    ['concurrency of task flaky', { concurrency: 0 }],
    ['concurrency of task flaky', { concurrency: 1.5 }],
    ['concurrency.key of task flaky', { concurrency: { limit: 1, key: 'account' as never } }],
  ])('refuses a bad option at app.task: %s', (option, options) => {
    expect(() => t.app.task('flaky', () => 1, options)).toThrow(invalid(option));
  });

  it('refuses a rate window that is not a duration, with the duration error', () => {
    expect(() => t.app.task('flaky', () => 1, { rateLimit: { limit: 5, per: 'soon' as never } })).toThrow(
      invalid('rateLimit.per of task flaky', 'CELERIAC_INVALID_DURATION'),
    );
  });

  it('parses rates by unit and by window, and computes keyed scopes on the sender', () => {
    const runtime = runtimeOf(t.app);
    const limits = (name: string, options: TaskOptions, args: unknown[]) => {
      t.app.task(name, (..._args: unknown[]) => 1, options);
      return runtime.buildMessage(name, args, {}).limits;
    };
    expect(limits('a', { rateLimit: '100/s' }, [])).toEqual({
      task: 'a',
      rate: { limit: 100, per: 1_000, burst: 1, key: 'a' },
    });
    expect(limits('b', { rateLimit: '1000/h', concurrency: 3 }, [])).toEqual({
      task: 'b',
      rate: { limit: 1000, per: 3_600_000, burst: 1, key: 'b' },
      concurrency: { limit: 3, key: 'b' },
    });
    expect(limits('c', { rateLimit: { limit: 5, per: '10s', burst: 2, key: (id: string) => id } }, ['acme'])).toEqual({
      task: 'c',
      rate: { limit: 5, per: 10_000, burst: 2, key: 'c:acme' },
    });
    expect(limits('d', { concurrency: { limit: 1, key: (id: string) => id } }, ['42'])).toEqual({
      task: 'd',
      concurrency: { limit: 1, key: 'd:42' },
    });
    expect(limits('e', {}, [])).toBeUndefined();
  });

  it('the limits travel in the message, and a key function that returns no string is refused at the call', () => {
    const sync = t.app.task('acct.sync', (account: unknown) => account, {
      concurrency: { limit: 1, key: (account: unknown) => account as string },
    });
    const runtime = runtimeOf(t.app);
    const message = runtime.buildMessage('acct.sync', ['a-1'], {});
    expect(decodeMessage(runtime.codec, runtime.encode(message)).limits).toEqual({
      task: 'acct.sync',
      concurrency: { limit: 1, key: 'acct.sync:a-1' },
    });
    expect(() => sync.delay(42)).toThrow(invalid('concurrency.key of task acct.sync'));
    expect(() => sync.delay('')).toThrow(invalid('concurrency.key of task acct.sync'));
  });

  it('app.control.rateLimit changes a rate at run time and refuses a bad one', async () => {
    t.app.task('api.call', () => 1, { rateLimit: '10/s' });
    await expect(t.app.control.rateLimit('api.call', 'fast' as never)).rejects.toThrow(invalid('rate limit'));
    await t.app.control.rateLimit('api.call', '50/s');
    await expect(t.app.control.rateLimits()).resolves.toEqual({ 'api.call': { limit: 50, per: 1_000, burst: 1 } });
    await t.app.control.rateLimit('api.call', null);
    await expect(t.app.control.rateLimits()).resolves.toEqual({});
  });

  it.each<[string, TaskOptions]>([
    ['unique of task flaky', { unique: 'yes' as never }],
    ['unique.while of task flaky', { unique: { while: 'always' as never } }],
    ['unique.key of task flaky', { unique: { key: 'id' as never } }],
  ])('refuses a bad unique option at app.task: %s', (option, options) => {
    expect(() => t.app.task('flaky', () => 1, options)).toThrow(invalid(option));
  });

  it('unique: true keys a call by its name and canonically encoded arguments', () => {
    const runtime = runtimeOf(t.app);
    t.app.task('index.rebuild', (_options: unknown) => 1, { unique: true });
    const keyOf = (args: unknown[]) => runtime.buildMessage('index.rebuild', args, {}).limits?.unique?.key;
    expect(keyOf([{ a: 1, b: [new Date(0)] }])).toBe(keyOf([{ b: [new Date(0)], a: 1 }]));
    expect(keyOf([{ a: 1 }])).not.toBe(keyOf([{ a: 2 }]));
    expect(keyOf([{ a: 1 }])).toMatch(/^index\.rebuild:[0-9a-f]{64}$/);
    expect(runtime.buildMessage('index.rebuild', [], {}).limits?.unique).toMatchObject({
      while: 'queued-or-running',
      ttl: 3_600_000,
    });
    class Opaque {}
    expect(() => keyOf([new Opaque()])).toThrow(invalid('give unique a key function'));
  });

  it('a second send while the first waits or runs is deduplicated (same id, result); then a new task', async () => {
    let runs = 0;
    const rebuild = t.app.task(
      'index.rebuild',
      (name: string) => {
        runs += 1;
        return `${name} rebuilt`;
      },
      { unique: true },
    );
    const first = rebuild.delay('users');
    const second = rebuild.delay('users');
    const other = rebuild.delay('orders');
    await Promise.all([first.sent, second.sent, other.sent]);
    expect([first.deduplicated, second.deduplicated, other.deduplicated]).toEqual([false, true, false]);
    expect(second.id).toBe(first.id);
    const worker = await t.startWorker();
    await expect(Promise.all([first, second, other])).resolves.toEqual([
      'users rebuilt',
      'users rebuilt',
      'orders rebuilt',
    ]);
    expect(runs).toBe(2);
    // The record is stored before the ack: the task holds its key until its worker has acked it.
    await worker.close();
    const again = rebuild.delay('users');
    await t.startWorker();
    await expect(again).resolves.toBe('users rebuilt');
    expect([again.deduplicated, again.id === first.id, runs]).toEqual([false, false, 3]);
  });

  it('throttle: the first send runs, later ones in the window get its handle even after it ran', async () => {
    expect(() => t.app.task('both', () => 1, { unique: true, throttle: '1s' })).toThrow(
      invalid('throttle of task both'),
    );
    expect(() => t.app.task('bad', () => 1, { throttle: 'often' as never })).toThrow(
      invalid('throttle of task bad', 'CELERIAC_INVALID_DURATION'),
    );
    let runs = 0;
    const ping = t.app.task(
      'status.ping',
      (host: string) => {
        runs += 1;
        return `${host} up`;
      },
      { throttle: '1h' },
    );
    const worker = await t.startWorker();
    const first = ping.delay('db');
    await expect(first).resolves.toBe('db up');
    await worker.close();
    const later = ping.delay('db');
    const other = ping.delay('cache');
    await Promise.all([later.sent, other.sent]);
    expect([later.deduplicated, later.id === first.id, other.deduplicated]).toEqual([true, true, false]);
    await expect(later).resolves.toBe('db up');
    await t.startWorker();
    await expect(other).resolves.toBe('cache up');
    expect(runs).toBe(2);
  });
});
