/** Backend conformance: the event log (events stored with records, read back, tailed). */
import { CeleriacCore } from '../../app';
import type { CeleriacEvent } from '../../events/event-types';
import { taskRecord, type OpenBackend } from './harness';

function sent(taskId: string): CeleriacEvent {
  return { type: 'task-sent', taskId, task: 'conformance.task', queue: 'q', timestamp: 1_700_000_000_000, retries: 0 };
}

/** Defines the event log cases (for backends that keep one). */
export function eventCases(open: OpenBackend): void {
  it('stores events with records, in order, and reads them back with growing ids', async () => {
    const { backend, writer } = await open();
    if (!backend.events || !writer.events)
      throw new Error('the event cases run only on a backend that declares events');
    expect(await backend.events.lastId()).toBe('0-0');
    await writer.store([{ record: taskRecord('a', 'SUCCESS'), ttl: 60_000 }], [sent('a'), sent('b')]);
    await writer.events.append([sent('c')]);
    const recent = await backend.events.recent(10);
    expect(recent.map((event) => 'taskId' in event && event.taskId)).toEqual(['a', 'b', 'c']);
    expect(recent[0]).toMatchObject(sent('a'));
    expect(await backend.events.lastId()).toBe(recent[2]?.eventId);
    expect((await backend.events.recent(2)).map((event) => event.eventId)).toEqual([
      recent[1]?.eventId,
      recent[2]?.eventId,
    ]);
    expect((await backend.events.recent(5, recent[2]?.eventId)).map((event) => event.eventId)).toEqual([
      recent[0]?.eventId,
      recent[1]?.eventId,
    ]);
    expect(await backend.events.read(recent[0]?.eventId as string, { count: 10, block: 0 })).toEqual(recent.slice(1));
    expect(await backend.get('a')).toMatchObject({ state: 'SUCCESS' });
  });

  it('a blocked read wakes when an event is appended, and ends empty when its signal aborts', async () => {
    const { backend, writer } = await open();
    if (!backend.events || !writer.events)
      throw new Error('the event cases run only on a backend that declares events');
    const after = await backend.events.lastId();
    const reading = backend.events.read(after, { count: 10, block: 30_000 });
    // The read is blocked (or about to be); the append wakes it wherever it is.
    await writer.events.append([sent('late')]);
    expect((await reading).map((event) => 'taskId' in event && event.taskId)).toEqual(['late']);
    const controller = new AbortController();
    const aborted = backend.events.read(await backend.events.lastId(), {
      count: 10,
      block: 30_000,
      signal: controller.signal,
    });
    controller.abort();
    expect(await aborted).toEqual([]);
  });
}

/** Without `events`: the app says there is no event log to read. */
export function eventLack(open: OpenBackend): void {
  it('has no event log, and app.events says so', async () => {
    const { backend } = await open();
    expect(backend.events).toBeUndefined();
    const app = new CeleriacCore({ broker: 'memory://', backend });
    try {
      await expect(app.events.recent({ limit: 1 })).rejects.toMatchObject({ code: 'CELERIAC_NO_EVENT_LOG' });
    } finally {
      await app.close();
    }
  });
}
