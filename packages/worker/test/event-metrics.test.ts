/**
 * The app-level counters fed by a reader of the event log (`metricsHandler(app).countEvent`):
 * what each event counts, that the history read back at a start is not counted, that an event
 * handed twice (a second reader, a resumed read) counts once, and which task names become labels.
 */
import { CeleriacCore, type StoredEvent, type TaskEvent } from '@celeriac/core';
import { collectMetrics, metricsHandler } from '../src/metrics/app-metrics';

type Fields<T extends TaskEvent['type']> = Omit<Extract<TaskEvent, { type: T }>, 'taskId' | 'queue' | 'timestamp'>;

/** Makes task events with ids after (or, given `at`, at) a time, in order. */
function eventsAt(start: number) {
  let seq = 0;
  return <T extends TaskEvent['type']>(fields: Fields<T> & { type: T }, at = start): StoredEvent =>
    ({ taskId: `id-${seq}`, queue: 'default', timestamp: at, eventId: `${at}-0.${seq++}`, ...fields }) as StoredEvent;
}

const apps: CeleriacCore[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function newApp(events = true): CeleriacCore {
  const app = new CeleriacCore({ broker: 'memory://', events });
  apps.push(app);
  return app;
}

/** The scrape's lines that start with `prefix`. */
async function lines(app: CeleriacCore, prefix: string): Promise<string[]> {
  return (await collectMetrics(app)).split('\n').filter((line) => line.startsWith(prefix));
}

describe('metricsHandler(app).countEvent', () => {
  it('counts final states, retries, dead letters, run times and queue waits by task and queue', async () => {
    const app = newApp();
    app.task('math.add', (a: number, b: number) => a + b);
    const { countEvent } = metricsHandler(app);
    const event = eventsAt(Date.now() + 1_000);
    countEvent(event({ type: 'task-sent', task: 'math.add' }));
    countEvent(event({ type: 'task-started', task: 'math.add', wait: 30 }));
    countEvent(event({ type: 'task-succeeded', task: 'math.add', runtime: 20 }));
    countEvent(event({ type: 'task-started', task: 'math.add', wait: 2_000 }));
    countEvent(event({ type: 'task-retried', task: 'math.add', runtime: 7, delay: 1_000, error: boom }));
    countEvent(event({ type: 'task-failed', task: 'math.add', runtime: 3, error: boom }));
    countEvent(event({ type: 'task-revoked', task: 'math.add', reason: 'revoked' }));
    countEvent(event({ type: 'task-expired', task: 'math.add' }));
    countEvent(event({ type: 'task-rejected', task: 'math.add', reason: 'lost' }));

    expect(await lines(app, 'celeriac_app_tasks_total{')).toEqual([
      'celeriac_app_tasks_total{task="math.add",queue="default",state="SUCCESS"} 1',
      'celeriac_app_tasks_total{task="math.add",queue="default",state="FAILURE"} 2',
      'celeriac_app_tasks_total{task="math.add",queue="default",state="REVOKED"} 2',
    ]);
    expect(await lines(app, 'celeriac_app_task_retries_total{')).toEqual([
      'celeriac_app_task_retries_total{task="math.add",queue="default"} 1',
    ]);
    expect(await lines(app, 'celeriac_app_dead_letters_total{')).toEqual([
      'celeriac_app_dead_letters_total{task="math.add",queue="default"} 1',
    ]);
    expect(await lines(app, 'celeriac_app_task_runtime_seconds_sum')).toEqual([
      'celeriac_app_task_runtime_seconds_sum{task="math.add",queue="default"} 0.03',
    ]);
    expect(await lines(app, 'celeriac_app_task_queue_wait_seconds_count')).toEqual([
      'celeriac_app_task_queue_wait_seconds_count{task="math.add",queue="default"} 2',
    ]);
    expect(await lines(app, 'celeriac_app_task_queue_wait_seconds_bucket{le="0.05"')).toEqual([
      'celeriac_app_task_queue_wait_seconds_bucket{le="0.05",task="math.add",queue="default"} 1',
    ]);
  });

  it('counts from when the handler was made: the history read back at a start only teaches names', async () => {
    const app = newApp();
    const { countEvent } = metricsHandler(app);
    const old = eventsAt(Date.now() - 60_000);
    countEvent(old({ type: 'task-started', task: 'mail.send', wait: 5 }));
    countEvent(old({ type: 'task-succeeded', task: 'mail.send', runtime: 5 }));
    expect(await lines(app, 'celeriac_app_tasks_total{')).toEqual([]);

    // A name from a run event is real (a worker registered it), though this app did not.
    const live = eventsAt(Date.now() + 1_000);
    countEvent(live({ type: 'task-revoked', task: 'mail.send', reason: 'revoked' }));
    expect(await lines(app, 'celeriac_app_tasks_total{')).toEqual([
      'celeriac_app_tasks_total{task="mail.send",queue="default",state="REVOKED"} 1',
    ]);
  });

  it('counts an event once, however many readers hand it over', async () => {
    const app = newApp();
    const first = metricsHandler(app);
    const second = metricsHandler(app);
    const event = eventsAt(Date.now() + 1_000);
    const events = [
      event({ type: 'task-succeeded', task: 'math.add', runtime: 1 }),
      event({ type: 'task-succeeded', task: 'math.add', runtime: 1 }),
    ];
    for (const each of events) first.countEvent(each);
    for (const each of events) second.countEvent(each);
    // Ids order the events of one stream entry as whole numbers: .10 comes after .9.
    const entry = `${Date.now() + 2_000}-0`;
    for (const index of [9, 10]) {
      const succeeded = event({ type: 'task-succeeded', task: 'math.add', runtime: 1 });
      first.countEvent({ ...succeeded, eventId: `${entry}.${index}` });
    }
    expect(await lines(app, 'celeriac_app_tasks_total{')).toEqual([
      'celeriac_app_tasks_total{task="math.add",queue="default",state="SUCCESS"} 4',
    ]);
  });

  it('labels names seen only outside runs (an unknown task dead-lettered) as (unregistered)', async () => {
    const app = newApp();
    app.task('math.add', (a: number, b: number) => a + b);
    const { countEvent } = metricsHandler(app);
    const event = eventsAt(Date.now() + 1_000);
    countEvent(event({ type: 'task-rejected', task: 'no.such.task', reason: 'unknown task no.such.task' }));
    countEvent(event({ type: 'task-rejected', reason: 'bad signature' }));
    countEvent(event({ type: 'task-rejected', task: 'math.add', reason: 'lost' }));
    expect(await lines(app, 'celeriac_app_dead_letters_total{')).toEqual([
      'celeriac_app_dead_letters_total{task="(unregistered)",queue="default"} 2',
      'celeriac_app_dead_letters_total{task="math.add",queue="default"} 1',
    ]);
  });

  it('says whether events are on, and shows no counters until a reader feeds it', async () => {
    const off = newApp(false);
    metricsHandler(off);
    const text = await collectMetrics(off);
    expect(text).toContain('\nceleriac_events_enabled 0\n');
    expect(text).toMatch(/^# HELP celeriac_events_enabled .*`events: true`/m);
    expect(text).not.toContain('# TYPE celeriac_app_');
    expect(await lines(newApp(true), 'celeriac_events_enabled')).toEqual(['celeriac_events_enabled 1']);
  });
});

const boom = { name: 'Error', message: 'boom' };
