/**
 * The event log on Redis, seen from a sender: a task's `task-sent` is written before the task is
 * published, on the same connection, so Redis stores it before any worker can reserve the task and
 * no worker's event for it can come first in the stream.
 */
import type { Broker } from 'celeriac';
import { RedisFixture } from '@celeriac/test-support';

describe('task-sent on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => {
    fixture = new RedisFixture('events-redis');
  });
  afterEach(() => fixture.cleanup());

  it('is written before the publish of its task, for tasks sent one by one and in batches', async () => {
    const app = fixture.app({ events: true });
    const add = app.task('math.add', (a: number, b: number) => a + b);
    const broker = app.broker;
    const publish = broker.publish.bind(broker);
    const published: string[] = [];
    const missing: string[] = [];
    // Reads the log on the app's own connection as each publish is handed over: what the sender
    // wrote before the publish is seen by this read, and what it would write after is not.
    broker.publish = async (envelopes: Parameters<Broker['publish']>[0]) => {
      const stored = await app.events.recent({ type: 'task-sent', limit: 10_000 });
      const sent = new Set(stored.map((event) => ('taskId' in event ? event.taskId : '')));
      for (const { id } of envelopes) {
        published.push(id);
        if (!sent.has(id)) missing.push(id);
      }
      return publish(envelopes);
    };
    const single = await Promise.all(Array.from({ length: 20 }, (_, i) => add.delay(i, i).sent.then(() => i)));
    const batch = add.delayMany(Array.from({ length: 100 }, (_, i) => [i, 1] as [number, number]));
    await Promise.all(batch.map((result) => result.sent));
    expect(single).toHaveLength(20);
    expect(published).toHaveLength(120);
    expect(missing).toEqual([]);
  });
});
