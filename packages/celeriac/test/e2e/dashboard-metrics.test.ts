/**
 * The dashboard's `/metrics` counts the tasks a real `celeriac worker` ran, from the event log
 * (`celeriac_app_*`): final states by task and queue, retries, dead letters, run times and queue
 * waits; the same numbers whatever the live connections; and, with events off, says so and still
 * serves the gauges.
 */
import { createDashboard, metricsHandler, type Celeriac, type Dashboard, type StoredEvent } from 'celeriac';
import { readLiveMessages } from '@celeriac/test-support';
import { parseSamples, sampleValue, type Sample } from './support/prometheus-text';
import { useE2e } from './support/worker-process';

const FINAL = new Set(['task-succeeded', 'task-failed', 'task-rejected']);

/**
 * Opens the dashboard's live feed, calls `send` once it is open, and resolves once the feed pushed
 * a final event of every task `send` returned: by then the dashboard's reader has counted them.
 */
async function sendAndWatch(url: string, send: () => string[]): Promise<void> {
  let waiting: Set<string> | undefined;
  await readLiveMessages(new URL('api/live', url).href, ({ name, data }) => {
    // The first message (the overview) says the feed is open: the tasks go now.
    waiting ??= new Set(send());
    if (name === 'events')
      for (const event of (data as { events: StoredEvent[] }).events)
        if (FINAL.has(event.type) && 'taskId' in event) waiting.delete(event.taskId);
    return waiting.size === 0;
  });
}

async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(new URL('metrics', url));
  expect(response.status).toBe(200);
  return parseSamples(await response.text());
}

describe("the dashboard's metrics", () => {
  const served: Array<{ app: Celeriac; dashboard: Dashboard }> = [];
  afterEach(async () => {
    for (const { app, dashboard } of served.splice(0)) {
      await dashboard.close();
      await app.close();
    }
  });
  // Declared after the hook above, so that its teardown (workers, then keys) runs after it.
  const e2e = useE2e('e2e-dashboard-metrics');

  /** Serves a dashboard of `app` with the app's metrics handler; both are closed after the test. */
  async function serve(app: Celeriac): Promise<string> {
    const dashboard = createDashboard(app, { metrics: metricsHandler(app), sampleEvery: 60_000 });
    served.push({ app, dashboard });
    return (await dashboard.listen({ port: 0 })).url;
  }

  it('counts the tasks every worker ran, from the event log: states, retries, dead letters, times', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'prefork']);
    await worker.ready();
    // The dashboard's app registers no task: the names come from the workers' run events.
    const app = fixture.app({ events: true });
    const url = await serve(app);

    await sendAndWatch(url, () => [
      app.sendTask('e2e.add', [1, 2]).id,
      app.sendTask('e2e.add', [3, 4]).id,
      app.sendTask('e2e.add', [5, 6]).id,
      app.sendTask('e2e.fail', ['boom']).id,
      app.sendTask('e2e.failOnce', [7]).id,
      app.sendTask('e2e.noSuchTask').id,
    ]);
    // A second live connection, and the first one gone: the one reader counted each event once.
    await sendAndWatch(url, () => [app.sendTask('e2e.add', [7, 8]).id]);

    const samples = await scrape(url);
    const on = (task: string, extra: Record<string, string> = {}) => ({ task, queue: 'default', ...extra });
    const tasks = (task: string, state: string) =>
      sampleValue(samples, 'celeriac_app_tasks_total', on(task, { state }));
    expect(tasks('e2e.add', 'SUCCESS')).toBe(4);
    expect(tasks('e2e.fail', 'FAILURE')).toBe(1);
    expect(tasks('e2e.failOnce', 'SUCCESS')).toBe(1);
    expect(tasks('e2e.failOnce', 'FAILURE')).toBeUndefined();
    expect(sampleValue(samples, 'celeriac_app_task_retries_total', on('e2e.failOnce'))).toBe(1);
    expect(sampleValue(samples, 'celeriac_app_task_retries_total', on('e2e.add'))).toBeUndefined();
    // A task no worker knows: dead-lettered, counted FAILURE, and not a label of its own.
    expect(sampleValue(samples, 'celeriac_app_dead_letters_total', on('(unregistered)'))).toBe(1);
    expect(tasks('(unregistered)', 'FAILURE')).toBe(1);
    expect(samples.some((sample) => sample.labels.task === 'e2e.noSuchTask')).toBe(false);
    // Run times: every run, the retried one too; queue waits: every start.
    expect(sampleValue(samples, 'celeriac_app_task_runtime_seconds_count', on('e2e.add'))).toBe(4);
    expect(sampleValue(samples, 'celeriac_app_task_runtime_seconds_count', on('e2e.failOnce'))).toBe(2);
    expect(sampleValue(samples, 'celeriac_app_task_runtime_seconds_count', on('e2e.fail'))).toBe(1);
    expect(sampleValue(samples, 'celeriac_app_task_queue_wait_seconds_count', on('e2e.add'))).toBe(4);
    expect(sampleValue(samples, 'celeriac_app_task_queue_wait_seconds_count', on('e2e.failOnce'))).toBe(2);
    expect(sampleValue(samples, 'celeriac_app_task_runtime_seconds_bucket', on('e2e.add', { le: '+Inf' }))).toBe(4);
    // No task ids anywhere: every label value comes from a bounded set.
    expect(
      samples.filter((sample) => Object.values(sample.labels).some((value) => /^[0-9a-f-]{36}$/.test(value))),
    ).toEqual([]);
    // The gauges are still there, and events are on.
    expect(sampleValue(samples, 'celeriac_events_enabled')).toBe(1);
    expect(sampleValue(samples, 'celeriac_workers_online')).toBe(1);
    expect(sampleValue(samples, 'celeriac_queue_tasks', { queue: 'default', state: 'dead' })).toBe(1);
  });

  it('with events off, says so and serves the gauges', async () => {
    const { fixture } = e2e();
    const app = fixture.app();
    await app.sendTask('e2e.add', [1, 1]).sent;
    const samples = await scrape(await serve(app));
    expect(sampleValue(samples, 'celeriac_events_enabled')).toBe(0);
    expect(sampleValue(samples, 'celeriac_queue_tasks', { queue: 'default', state: 'ready' })).toBe(1);
    expect(samples.some((sample) => sample.name.startsWith('celeriac_app_'))).toBe(false);
  });
});
