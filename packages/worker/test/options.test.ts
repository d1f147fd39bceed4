import { resolveWorkerOptions } from '../src/options';

describe('resolveWorkerOptions', () => {
  it('defaults to the app queue, inline pool, one task per CPU and a 30 s shutdown timeout', () => {
    const resolved = resolveWorkerOptions({}, 'main');
    expect(resolved).toMatchObject({ queues: ['main'], pool: 'inline', shutdownTimeout: 30_000 });
    expect(resolved.concurrency).toBeGreaterThanOrEqual(1);
    expect(resolved.hostname).toContain(String(process.pid));
  });

  it('takes given values, durations as strings', () => {
    const resolved = resolveWorkerOptions(
      { queues: ['a', 'b'], concurrency: 3, shutdownTimeout: '2s', hostname: 'w1' },
      'main',
    );
    expect(resolved).toMatchObject({ queues: ['a', 'b'], concurrency: 3, shutdownTimeout: 2_000, hostname: 'w1' });
  });

  it('serves no metrics unless asked; a metrics endpoint listens on 127.0.0.1 unless told', () => {
    expect(resolveWorkerOptions({}, 'main').metrics).toBeUndefined();
    expect(resolveWorkerOptions({ metrics: { port: 0 } }, 'main').metrics).toMatchObject({
      port: 0,
      host: '127.0.0.1',
    });
    expect(resolveWorkerOptions({ metrics: { port: 9808, host: '0.0.0.0' } }, 'main').metrics).toMatchObject({
      port: 9808,
      host: '0.0.0.0',
    });
  });

  it.each([
    [{ concurrency: 0 }, 'concurrency'],
    [{ concurrency: 1.5 }, 'concurrency'],
    [{ prefetch: -1 }, 'prefetch'],
    [{ queues: [] }, 'queues'],
    [{ pool: 'threads' as never }, 'pool'],
    [{ metrics: { port: 70_000 } }, 'metrics.port'],
    [{ metrics: { port: 9808, host: '' } }, 'metrics.host'],
    [{ metrics: { port: 9808, allowedHosts: ['a/b'] } }, 'metrics.allowedHosts'],
    [{ queues: ['default', '<img>'] }, 'queues'],
    [{ queues: ['a b'] }, 'queues'],
  ])('refuses %p with CELERIAC_INVALID_OPTION naming %s', (options, name) => {
    expect(() => resolveWorkerOptions(options, 'main')).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining(name) }),
    );
  });
});
