/**
 * The event log in one process (memory broker and backend): a task's life in order, payloads only
 * when the app opts in (cut to their limit), nothing with events off, and the failed-task registry.
 */
import { Celeriac } from 'celeriac';
import { captureLogs } from '@celeriac/test-support';

describe('events', () => {
  const apps: Celeriac[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  async function run(options: ConstructorParameters<typeof Celeriac>[0]) {
    const app = new Celeriac({ broker: 'memory://', ...options });
    apps.push(app);
    const echo = app.task('demo.echo', (text: string) => text.toUpperCase());
    await app.worker({ pool: 'inline', logger: captureLogs().logger }).start();
    const result = echo.delay('x'.repeat(50));
    await result;
    return { app, id: result.id };
  }

  it('records a task from sent to succeeded, without arguments or results unless asked', async () => {
    const { app, id } = await run({ events: true });
    const events = await app.events.recent({ task: id });
    expect(events.map((event) => event.type)).toEqual(['task-sent', 'task-received', 'task-started', 'task-succeeded']);
    expect(events.some((event) => 'args' in event || 'result' in event)).toBe(false);
    expect((await app.events.recent({ type: 'worker-online' })).length).toBe(1);
  });

  it('adds arguments and results with payloads on, cut to payloadLimit', async () => {
    const { app, id } = await run({ events: { payloads: true, payloadLimit: 20 } });
    const [sent] = await app.events.recent({ task: id, type: 'task-sent' });
    const [succeeded] = await app.events.recent({ task: id, type: 'task-succeeded' });
    expect(sent).toMatchObject({ args: expect.stringMatching(/^.{20}…$/) });
    expect(succeeded).toMatchObject({ result: expect.stringMatching(/^.{20}…$/) });
  });

  it('writes none with events off, the default', async () => {
    for (const events of [false, undefined]) {
      const { app } = await run(events === undefined ? {} : { events });
      expect(await app.events.recent()).toEqual([]);
    }
  });

  it('streams from a past point and ends once caught up with follow: false', async () => {
    const { app, id } = await run({ events: true });
    const seen: string[] = [];
    for await (const event of app.events.stream({ since: '1m', task: id, follow: false })) seen.push(event.type);
    expect(seen).toEqual(['task-sent', 'task-received', 'task-started', 'task-succeeded']);
  });
});
