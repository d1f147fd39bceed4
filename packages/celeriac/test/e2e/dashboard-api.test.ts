/**
 * The dashboard's actions on Redis, through its API as the page sends them: dead letters requeued
 * and discarded, a waiting task revoked, beat entries added at run time and removed (with a 400
 * that names what is wrong in a bad entry); and a task's page showing its arguments and result as
 * the user passed them.
 */
import { createDashboard, type AsyncResult, type Celeriac, type Dashboard, type StoredEvent } from 'celeriac';
import { readLiveMessages, RedisFixture } from '@celeriac/test-support';

describe('the dashboard API on Redis', () => {
  let fixture: RedisFixture;
  let app: Celeriac;
  let dashboard: Dashboard;
  let url: string;
  let csrf: string;

  beforeEach(async () => {
    fixture = new RedisFixture('e2e-dashboard-api');
    // Payloads on: the task page shows arguments from the events.
    app = fixture.app({ events: { payloads: true } });
    // Beat entries added through the dashboard must name a task its app registers.
    app.task('demo.add', (a: number, b: number) => a + b);
    dashboard = createDashboard(app, { sampleEvery: 60_000 });
    url = (await dashboard.listen({ port: 0 })).url;
    csrf = /name="celeriac-csrf" content="([^"]+)"/.exec(await (await fetch(url)).text())?.[1] ?? '';
  });

  afterEach(async () => {
    await dashboard.close();
    await fixture.cleanup();
  });

  async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(new URL(path, url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Celeriac-Csrf': csrf },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function get(path: string): Promise<Record<string, unknown>> {
    return (await (await fetch(new URL(path, url))).json()) as Record<string, unknown>;
  }

  /** Sends a task and dead-letters it, as a worker does with one it cannot run. */
  async function deadLetter(args: unknown[]): Promise<string> {
    const sent = app.sendTask('demo.add', args);
    await sent.sent;
    const [delivery] = await app.broker.reserve(['default'], 1);
    await app.broker.deadLetter(delivery!, 'no worker could run it');
    return sent.id;
  }

  it('lists dead letters, requeues one and discards the other', async () => {
    const first = await deadLetter([1, 2]);
    const second = await deadLetter([3, 4]);
    const listed = (await get('api/dead')) as { letters: Array<Record<string, unknown>> };
    expect(listed.letters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: first, task: 'demo.add', reason: 'no worker could run it', requeueable: true }),
        expect.objectContaining({ id: second, args: expect.stringContaining('3') }),
      ]),
    );
    await expect(post('api/dead/requeue', { queue: 'default', ids: [first] })).resolves.toEqual({
      status: 200,
      body: { requeued: 1 },
    });
    await expect(post('api/dead/discard', { queue: 'default', ids: [second] })).resolves.toEqual({
      status: 200,
      body: { discarded: 1 },
    });
    await expect(app.broker.listDead('default')).resolves.toEqual([]);
    await expect(app.queues.list()).resolves.toEqual([expect.objectContaining({ name: 'default', ready: 1 })]);
  });

  it("shows a task's arguments and result as the user passed them, never in the codec's wire form", async () => {
    // The worker's own app, as in another process: the arguments come from the sender's event, the
    // result from the worker's record.
    const workerApp = fixture.app({ events: { payloads: true } });
    workerApp.task('demo.total', (counts: Map<string, bigint>, extra: bigint, at: Date) => ({
      total: (counts.get('k') ?? 0n) + extra,
      at,
    }));
    await workerApp.worker({ concurrency: 1 }).start();
    const at = new Date('2024-05-06T07:08:09.000Z');
    let sent: AsyncResult<unknown> | undefined;
    let id = '';
    // Sent once the live feed is open; read until the feed has both the sender's and the worker's event.
    await readLiveMessages(new URL('api/live', url).href, ({ name }, messages) => {
      if (sent === undefined) {
        sent = app.sendTask('demo.total', [new Map([['k', 12n]]), 5n, at]);
        id = sent.id;
      }
      const seen = new Set(
        messages.flatMap((message) =>
          message.name === 'events'
            ? (message.data as { events: StoredEvent[] }).events
                .filter((event) => 'taskId' in event && event.taskId === id)
                .map((event) => event.type)
            : [],
        ),
      );
      return name === 'events' && seen.has('task-sent') && seen.has('task-succeeded');
    });
    // Its result is stored too (the page reads it from the result backend).
    await expect(sent).resolves.toEqual({ total: 17n, at });
    const page = (await get(`api/tasks/${id}`)) as { args: string; record: { state: string; result: string } };
    expect(page.args).toBe("[ Map(1) { 'k' => 12n }, 5n, 2024-05-06T07:08:09.000Z ]");
    expect(page.record).toMatchObject({ state: 'SUCCESS', result: '{ total: 17n, at: 2024-05-06T07:08:09.000Z }' });
    // superjson's wire form names its parts "json" and "meta": neither shows.
    expect([page.args, page.record.result].join('\n')).not.toMatch(/"json"|"meta"/);
  });

  it('revokes a waiting task', async () => {
    const waiting = app.sendTask('demo.add', [1, 1]);
    await waiting.sent;
    await expect(post(`api/tasks/${waiting.id}/revoke`, {})).resolves.toMatchObject({ status: 200 });
    await expect(waiting.state()).resolves.toBe('REVOKED');
  });

  it('adds a beat entry at run time, refuses a bad one, and removes it', async () => {
    await expect(post('api/beat/add', { name: 'poll', task: 'demo.add', every: '30s', args: [1, 2] })).resolves.toEqual(
      { status: 200, body: { added: 'poll' } },
    );
    const beat = (await get('api/beat')) as { entries: Array<Record<string, unknown>> };
    expect(beat.entries).toEqual([expect.objectContaining({ name: 'poll', task: 'demo.add', source: 'runtime' })]);
    const bad = await post('api/beat/add', { name: 'bad', task: 'demo.add', cron: 'not a cron' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(expect.any(String));
    const neither = await post('api/beat/add', { name: 'bad', task: 'demo.add' });
    expect(neither).toMatchObject({ status: 400, body: { message: expect.stringContaining('"cron"') } });
    await expect(post('api/beat/remove', { name: 'poll' })).resolves.toEqual({
      status: 200,
      body: { removed: 'poll' },
    });
    await expect(post('api/beat/remove', { name: 'poll' })).resolves.toMatchObject({ status: 404 });
  });

  it('refuses entries the API refuses: an unknown task (unless forced), a long name, a 1 ms interval', async () => {
    const unknown = await post('api/beat/add', { name: 'poll', task: 'demo.typo', every: '30s' });
    expect(unknown).toMatchObject({ status: 400, body: { code: 'CELERIAC_UNKNOWN_TASK' } });
    expect(unknown.body.message).toContain('"force": true');
    await expect(post('api/beat/add', { name: 'poll', task: 'demo.typo', every: '30s', force: true })).resolves.toEqual(
      {
        status: 200,
        body: { added: 'poll' },
      },
    );
    const long = await post('api/beat/add', { name: 'x'.repeat(200_000), task: 'demo.add', every: '30s' });
    expect(long).toMatchObject({ status: 400, body: { code: 'CELERIAC_INVALID_SCHEDULE' } });
    expect(String(long.body.message).length).toBeLessThan(500);
    const often = await post('api/beat/add', { name: 'often', task: 'demo.add', every: '1ms' });
    expect(often).toMatchObject({ status: 400, body: { code: 'CELERIAC_INVALID_SCHEDULE' } });
    expect(often.body.message).toContain('at least 100 ms');
  });

  it('refuses a queue name senders refuse', async () => {
    for (const [path, body] of [
      ['api/queues/%3Cimg%3E/pause', {}],
      ['api/queues/a%20b/purge', {}],
      ['api/dead/requeue', { queue: '<img>', all: true }],
      ['api/failed/retry', { queue: 'a/b', all: true }],
    ] as const) {
      const refused = await post(path, body);
      expect([path, refused.status, refused.body.code]).toEqual([path, 400, 'CELERIAC_BAD_REQUEST']);
      expect(refused.body.message).toContain('queue name');
    }
    await expect(app.queues.isPaused('<img>')).resolves.toBe(false);
  });
});
