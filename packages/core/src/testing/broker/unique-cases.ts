/**
 * Broker conformance: unique tasks. A publish whose unique key a live task holds stores nothing and
 * names that task; the lock follows the task's life (mode 'queued-or-running': until it is acked or
 * dead-lettered; 'queued': until it is leased; 'running': only while it runs) and a lock whose task
 * ended otherwise (revoked) is not honoured.
 */
import type { UniqueLock } from '../../flow/message-limits';
import type { Envelope } from '../../message';
import { envelope, ids, QUEUE, type OpenBroker } from './harness';

function unique(id: string, mode: UniqueLock['while'] = 'queued-or-running', key = 'report:1'): Envelope {
  return envelope(id, { limits: { task: 'report', unique: { key, while: mode, ttl: 60_000 } } });
}

/** Defines the unique-task cases. */
export function uniqueCases(open: OpenBroker): void {
  it('a duplicate while queued or running names the first task, in one batch and across publishes', async () => {
    const { broker, writer } = await open();
    expect(await writer.publish([unique('u1'), unique('u2'), unique('other', undefined, 'report:2')])).toEqual([
      'published',
      { duplicateOf: 'u1' },
      'published',
    ]);
    const [first] = await broker.reserve([QUEUE], 1);
    expect(await writer.publish([unique('u3')])).toEqual([{ duplicateOf: 'u1' }]);
    await broker.ack([first!]);
    expect(await writer.publish([unique('u4')])).toEqual(['published']);
    expect(await broker.stats(QUEUE)).toMatchObject({ ready: 2, active: 0 });
  });

  it("a 'queued' lock ends when the task is leased, and a 'running' lock holds only while it runs", async () => {
    const { broker, writer } = await open();
    await writer.publish([unique('q1', 'queued')]);
    expect(await writer.publish([unique('q2', 'queued')])).toEqual([{ duplicateOf: 'q1' }]);
    expect(ids(await broker.reserve([QUEUE], 1))).toEqual(['q1']);
    expect(await writer.publish([unique('q3', 'queued')])).toEqual(['published']);

    await writer.publish([unique('r1', 'running', 'r'), unique('r2', 'running', 'r')]);
    const leased = await broker.reserve([QUEUE], 10);
    expect(ids(leased)).toEqual(['q3', 'r1', 'r2']);
    // r2 started after r1 (both were queued, which 'running' allows): it holds the lock now.
    expect(await writer.publish([unique('r3', 'running', 'r')])).toEqual([{ duplicateOf: 'r2' }]);
    await broker.ack(leased);
    expect(await writer.publish([unique('r4', 'running', 'r')])).toEqual(['published']);
  });

  it('a revoked or dead-lettered task no longer holds its key', async () => {
    const { broker, writer } = await open();
    await writer.publish([unique('gone')]);
    await broker.revoke({ id: 'gone', terminate: false });
    expect(await writer.publish([unique('next')])).toEqual(['published']);
    const [next] = await broker.reserve([QUEUE], 1);
    await broker.deadLetter(next!, 'test');
    expect(await writer.publish([unique('last')])).toEqual(['published']);
  });

  it("a throttle's window holds after its task ended: later sends name the first until it passes", async () => {
    const { broker, writer } = await open();
    const throttled = (id: string, key = 'ping:1'): Envelope =>
      envelope(id, { limits: { task: 'ping', unique: { key, while: 'window', ttl: 60_000 } } });
    expect(await writer.publish([throttled('t1'), throttled('t2'), throttled('t3', 'ping:2')])).toEqual([
      'published',
      { duplicateOf: 't1' },
      'published',
    ]);
    await broker.ack(await broker.reserve([QUEUE], 10));
    expect(await writer.publish([throttled('t4')])).toEqual([{ duplicateOf: 't1' }]);
  });
}
