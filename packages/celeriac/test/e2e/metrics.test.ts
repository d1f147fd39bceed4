/**
 * Prometheus metrics of a real `celeriac worker` process (prefork pool) after it ran tasks that
 * succeeded, failed, were retried and were dead-lettered; and the app-level handler's gauges, read
 * from the queues and the workers' heartbeats.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectMetrics, metricsHandler, type Celeriac } from 'celeriac';
import { parseSamples, sampleValue, type Sample } from './support/prometheus-text';
import { useE2e, type WorkerProcess } from './support/worker-process';

async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return parseSamples(await response.text());
}

/** Resolves once the event log holds a `task-rejected` event of task `id` (the worker dead-lettered it). */
async function deadLettered(app: Celeriac, id: string): Promise<void> {
  const stop = new AbortController();
  for await (const event of app.events.stream({ since: '1m', task: id, signal: stop.signal }))
    if (event.type === 'task-rejected') stop.abort();
}

async function metricsUrl(worker: WorkerProcess): Promise<string> {
  const ready = await worker.ready();
  expect(ready.metrics).toEqual(expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/));
  return ready.metrics as string;
}

describe('metrics', () => {
  const e2e = useE2e('e2e-metrics');

  it("a worker's endpoint counts its tasks by name, queue and state, with run times and queue waits", async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'prefork', '--metrics-port', '0']);
    const url = await metricsUrl(worker);
    const app = fixture.app();

    const sums = [app.sendTask('e2e.add', [1, 2]), app.sendTask('e2e.add', [3, 4]), app.sendTask('e2e.add', [5, 6])];
    const failed = app.sendTask('e2e.fail', ['boom']);
    const retried = app.sendTask('e2e.failOnce', [7]);
    const unknown = app.sendTask('e2e.noSuchTask');
    await expect(Promise.all(sums)).resolves.toEqual([3, 7, 11]);
    await expect(failed).rejects.toThrow('e2e.fail called with ["boom"]');
    await expect(retried).resolves.toBe(7);
    await expect(unknown).rejects.toThrow('e2e.noSuchTask');
    await deadLettered(app, unknown.id);

    const samples = await scrape(url);
    const on = (task: string, extra: Record<string, string> = {}) => ({ task, queue: 'default', ...extra });
    expect(sampleValue(samples, 'celeriac_tasks_total', on('e2e.add', { state: 'SUCCESS' }))).toBe(3);
    expect(sampleValue(samples, 'celeriac_tasks_total', on('e2e.fail', { state: 'FAILURE' }))).toBe(1);
    expect(sampleValue(samples, 'celeriac_tasks_total', on('e2e.failOnce', { state: 'SUCCESS' }))).toBe(1);
    expect(sampleValue(samples, 'celeriac_tasks_total', on('e2e.failOnce', { state: 'FAILURE' }))).toBeUndefined();
    expect(sampleValue(samples, 'celeriac_task_retries_total', on('e2e.failOnce'))).toBe(1);
    expect(sampleValue(samples, 'celeriac_task_retries_total', on('e2e.add'))).toBeUndefined();
    // A name no worker registered is not a label of its own: messages could carry any number of them.
    expect(sampleValue(samples, 'celeriac_dead_letters_total', on('(unregistered)'))).toBe(1);
    expect(samples.some((sample) => sample.labels.task === 'e2e.noSuchTask')).toBe(false);
    // Run times: every run, the retried one too; queue waits: every start.
    expect(sampleValue(samples, 'celeriac_task_runtime_seconds_count', on('e2e.add'))).toBe(3);
    expect(sampleValue(samples, 'celeriac_task_runtime_seconds_count', on('e2e.failOnce'))).toBe(2);
    expect(sampleValue(samples, 'celeriac_task_runtime_seconds_count', on('e2e.fail'))).toBe(1);
    expect(sampleValue(samples, 'celeriac_task_queue_wait_seconds_count', on('e2e.add'))).toBe(3);
    expect(sampleValue(samples, 'celeriac_task_queue_wait_seconds_count', on('e2e.failOnce'))).toBe(2);
    expect(sampleValue(samples, 'celeriac_task_runtime_seconds_bucket', on('e2e.add', { le: '+Inf' }))).toBe(3);
    // Its slots, and the queue it consumes, read from Redis as it is scraped.
    expect(sampleValue(samples, 'celeriac_worker_concurrency')).toBe(2);
    expect(sampleValue(samples, 'celeriac_worker_busy_slots')).toBe(0);
    expect(sampleValue(samples, 'celeriac_worker_child_restarts_total')).toBe(0);
    expect(sampleValue(samples, 'celeriac_queue_tasks', { queue: 'default', state: 'dead' })).toBe(1);
    expect(sampleValue(samples, 'celeriac_queue_tasks', { queue: 'default', state: 'ready' })).toBe(0);
    // No task ids anywhere: every label value comes from a bounded set.
    const ids = [...sums, failed, retried, unknown].map((result) => result.id);
    expect(samples.filter((sample) => Object.values(sample.labels).some((value) => ids.includes(value)))).toEqual([]);

    expect((await fetch(url.replace('/metrics', '/other'))).status).toBe(404);
    await app.close();
  });

  it('refuses --metrics-host or --metrics-allowed-host without --metrics-port, or a taken port', async () => {
    const { workers } = e2e();
    const hostOnly = workers.start(['--metrics-host', '0.0.0.0']);
    expect((await hostOnly.exited).code).toBe(1);
    expect(hostOnly.stderr.join('\n')).toContain('--metrics-host needs --metrics-port <port> too');
    const allowedOnly = workers.start(['--metrics-allowed-host', 'metrics.example.com']);
    expect((await allowedOnly.exited).code).toBe(1);
    expect(allowedOnly.stderr.join('\n')).toContain('--metrics-allowed-host needs --metrics-port <port> too');

    const first = workers.start(['-c', '1', '--pool', 'inline', '--metrics-port', '0']);
    const port = new URL(await metricsUrl(first)).port;
    const second = workers.start(['-c', '1', '--pool', 'inline', '--metrics-port', port]);
    expect((await second.exited).code).toBe(1);
    const logged = JSON.stringify(second.lines) + second.stderr.join('\n');
    expect(logged).toContain(`could not listen on 127.0.0.1:${port} (EADDRINUSE)`);
  });

  it('counts the pool children it replaced', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork', '--max-tasks-per-child', '1', '--metrics-port', '0']);
    const url = await metricsUrl(worker);
    const app = fixture.app();
    await expect(app.sendTask('e2e.add', [2, 2])).resolves.toBe(4);
    // The child retires after its one task; the worker counts the replacement, then logs it.
    await worker.waitForLog((line) => line.msg.startsWith('Replacing pool child'), 'a replaced child');
    expect(sampleValue(await scrape(url), 'celeriac_worker_child_restarts_total')).toBe(1);
    await app.close();
  });

  it("the app-level handler exports the queues' depths and the workers online, for the dashboard", async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '3', '--pool', 'inline']);
    await worker.ready();
    const app = fixture.app();
    await app.queues.pause('reports');
    await app.sendTask('e2e.add', [1, 1], { queue: 'reports' }).sent;
    await expect(app.sendTask('e2e.fail', ['x'])).rejects.toThrow('e2e.fail');
    await expect(app.sendTask('e2e.noSuchTask')).rejects.toThrow('e2e.noSuchTask');

    // The worker's heartbeat went to Redis at its start, on the connection that later stored these
    // results: it is there now.
    const online = parseSamples(await collectMetrics(app));
    expect(sampleValue(online, 'celeriac_workers_online')).toBe(1);
    expect(sampleValue(online, 'celeriac_workers_concurrency')).toBe(3);
    expect(sampleValue(online, 'celeriac_workers_busy_slots')).toBe(0);

    worker.signal('SIGTERM');
    expect((await worker.exited).code).toBe(0);
    // Mounted in a server of the user's own (the dashboard mounts it at /metrics).
    const server = createServer(metricsHandler(app));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const samples = await scrape(`http://127.0.0.1:${port}/metrics`);
      const depth = (queue: string, state: string) => sampleValue(samples, 'celeriac_queue_tasks', { queue, state });
      expect([depth('default', 'ready'), depth('default', 'active'), depth('default', 'scheduled')]).toEqual([0, 0, 0]);
      expect(depth('default', 'dead')).toBe(1);
      expect(depth('default', 'failed')).toBe(1);
      expect(depth('reports', 'ready')).toBe(1);
      expect(sampleValue(samples, 'celeriac_queue_paused', { queue: 'reports' })).toBe(1);
      expect(sampleValue(samples, 'celeriac_queue_paused', { queue: 'default' })).toBe(0);
      // The worker stopped cleanly, and took its heartbeat record with it.
      expect(sampleValue(samples, 'celeriac_workers_online')).toBe(0);
      // Process metrics only when asked for: a dashboard is not the process being watched.
      expect(samples.some((sample) => sample.name.startsWith('process_'))).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    await app.close();
  });
});
