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

  it('emits task-received when the worker reserves a task, also one that waits in prefetch for a slot', async () => {
    const app = new Celeriac({ broker: 'memory://', events: true });
    apps.push(app);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const hold = app.task('demo.hold', async () => gate);
    const echo = app.task('demo.echo', (text: string) => text);
    await app.worker({ pool: 'inline', concurrency: 1, prefetch: 1, logger: captureLogs().logger }).start();
    const first = hold.delay();
    const waiting = echo.delay('waits in prefetch');
    // The second task is received while the first still holds the only slot.
    const signal = AbortSignal.timeout(10_000);
    for await (const event of app.events.stream({ since: '1m', task: waiting.id, signal })) {
      if (event.type === 'task-received') break;
    }
    expect(signal.aborted).toBe(false);
    expect(await app.events.recent({ task: waiting.id, type: 'task-started' })).toEqual([]);
    open();
    await expect(waiting).resolves.toBe('waits in prefetch');
    await first;
    const events = await app.events.recent({ type: ['task-received', 'task-started', 'task-succeeded'] });
    const at = (type: string, id: string) =>
      events.findIndex((event) => event.type === type && 'taskId' in event && event.taskId === id);
    // Received before the slot came: before the first task ended.
    expect(at('task-received', waiting.id)).toBeLessThan(at('task-succeeded', first.id));
    for (const id of [first.id, waiting.id]) {
      expect(at('task-received', id)).toBeGreaterThanOrEqual(0);
      expect(at('task-received', id)).toBeLessThan(at('task-started', id));
      expect(at('task-started', id)).toBeLessThan(at('task-succeeded', id));
    }
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
