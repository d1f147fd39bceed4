/**
 * The metrics endpoint of an in-process worker (on the behaviour suite's broker): where it listens,
 * what it answers besides `/metrics`, which `Host` it answers, and a port already taken, which fails
 * `start()` with a typed error naming the port.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useApp } from './support/app';

describe('the metrics endpoint of a worker', () => {
  const fixture = useApp();

  it('listens where asked, answers /metrics, 404 elsewhere, 405 to other methods, stops with the worker', async () => {
    const { app } = fixture;
    app.task('demo.add', (a: number, b: number) => a + b);
    const worker = await fixture.startWorker({ concurrency: 2, metrics: { port: 0 } });
    const url = worker.metricsUrl as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await expect(app.sendTask('demo.add', [1, 2])).resolves.toBe(3);

    const text = await (await fetch(url)).text();
    expect(text).toContain('celeriac_tasks_total{task="demo.add",queue="default",state="SUCCESS"} 1');
    expect(text).toContain('celeriac_worker_concurrency 2');
    // The Node.js process metrics of the worker's process come along.
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);

    await app.close();
    await expect(fetch(url)).rejects.toThrow();
  });

  it('answers only loopback names, IP addresses and the hosts allowed (no DNS rebinding)', async () => {
    const { app } = fixture;
    const worker = await fixture.startWorker({ metrics: { port: 0, allowedHosts: ['metrics.example.com'] } });
    const { port } = new URL(worker.metricsUrl as string);
    const scrape = (host: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path: '/metrics', headers: { Host: host }, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    for (const [host, status] of [
      [`attacker.example:${port}`, 403],
      ['metrics.example.com.attacker.example', 403],
      [`localhost:${port}`, 200],
      [`127.0.0.1:${port}`, 200],
      ['10.0.0.5:9808', 200],
      [`metrics.example.com:${port}`, 200],
    ] as const)
      expect([host, await scrape(host)]).toEqual([host, status]);
    await app.close();
  });

  it('fails start() with CELERIAC_INVALID_OPTION when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const { app } = fixture;
    try {
      const worker = app.worker({ metrics: { port } });
      await expect(worker.start()).rejects.toMatchObject({
        code: 'CELERIAC_INVALID_OPTION',
        message: expect.stringContaining(`could not listen on 127.0.0.1:${port} (EADDRINUSE)`),
      });
    } finally {
      await app.close();
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
