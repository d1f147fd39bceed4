/**
 * The live feed: a browser's event stream gets the overview at once, then the events of the log in
 * batches as they are written, with the overview again; the task list follows the same events.
 */
import { readLiveMessages } from '@celeriac/test-support';
import { closeServed, serve } from './support';

afterEach(closeServed);

describe('the live feed', () => {
  it('pushes the overview, then the events of a task sent after it opened', async () => {
    const { app, url } = await serve();
    let sent: string | undefined;
    const messages = await readLiveMessages(new URL('api/live', url).href, ({ name, data }, all) => {
      // The first message (the overview) says the feed is open: the task goes now.
      if (all.length === 1) sent = app.sendTask('mail.send', ['ops@example.com']).id;
      return (
        name === 'events' &&
        (data as { events: Array<{ taskId?: string }> }).events.some((event) => event.taskId === sent)
      );
    });
    expect(messages[0]).toMatchObject({ name: 'overview', data: { workers: [], eventsEnabled: true } });
    const batch = messages.at(-1)?.data as { events: Array<Record<string, unknown>>; skipped: number };
    expect(batch.skipped).toBe(0);
    expect(batch.events).toContainEqual(
      expect.objectContaining({ type: 'task-sent', taskId: sent, task: 'mail.send' }),
    );

    const list = (await (await fetch(new URL('api/tasks?name=mail', url))).json()) as { tasks: unknown[] };
    expect(list.tasks).toEqual([expect.objectContaining({ id: sent, state: 'PENDING', queue: 'default' })]);
  });
});
