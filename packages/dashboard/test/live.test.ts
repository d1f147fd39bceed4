/**
 * The live feed: a browser's event stream gets the overview at once, then the events of the log in
 * batches as they are written, with the overview again; the task list follows the same events.
 */
import { closeServed, serve } from './support';

afterEach(closeServed);

/** Reads server-sent messages from `url` until `until` accepts one; returns them all. */
async function readMessages(
  url: string,
  until: (name: string, data: unknown) => boolean,
  started: () => void,
): Promise<Array<{ name: string; data: unknown }>> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: Array<{ name: string; data: unknown }> = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('The event stream ended early.');
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (name === undefined || data === undefined) continue;
        const message = { name, data: JSON.parse(data) as unknown };
        messages.push(message);
        if (messages.length === 1) started();
        if (until(message.name, message.data)) return messages;
      }
    }
  } finally {
    controller.abort();
  }
}

describe('the live feed', () => {
  it('pushes the overview, then the events of a task sent after it opened', async () => {
    const { app, url } = await serve();
    let sent: string | undefined;
    const messages = await readMessages(
      new URL('api/live', url).href,
      (name, data) =>
        name === 'events' &&
        (data as { events: Array<{ taskId?: string }> }).events.some((event) => event.taskId === sent),
      () => {
        sent = app.sendTask('mail.send', ['ops@example.com']).id;
      },
    );
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
