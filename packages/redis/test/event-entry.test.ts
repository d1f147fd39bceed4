/** The compact stream entry of a batch of events: every event type reads back as it was written. */
import type { CeleriacEvent } from '@celeriac/core';
import { decodeEventEntry, encodeEventEntry } from '../src/events/event-entry';

const at = 1_764_124_151_570;
const task = { taskId: 't-1', task: 'orders.ship', queue: 'default', retries: 1 };
const worker = { hostname: 'vm', pid: 5722 };
const error = { name: 'Error', message: 'teapot is out of stock' };

/** One event of each type a worker writes, with every optional field set. */
const workerEvents: CeleriacEvent[] = [
  { type: 'task-received', ...task, ...worker, timestamp: at, delivery: 2 },
  { type: 'task-started', ...task, ...worker, timestamp: at + 1, args: '[1,"a"]', wait: 12 },
  { type: 'task-progress', ...task, ...worker, timestamp: at + 2, state: 'PACKING' },
  { type: 'task-succeeded', ...task, ...worker, timestamp: at + 3, runtime: 34, result: '{"ok":true}' },
  { type: 'task-failed', ...task, ...worker, timestamp: at + 4, runtime: 7, error },
  { type: 'task-retried', ...task, ...worker, timestamp: at + 5, runtime: 7, error, delay: 100 },
  { type: 'task-revoked', ...task, ...worker, timestamp: at + 6, reason: 'terminated' },
  { type: 'task-rejected', taskId: 't-2', queue: 'default', ...worker, timestamp: at + 7, reason: 'bad message' },
  { type: 'task-expired', ...task, ...worker, timestamp: at + 8 },
  {
    type: 'worker-online',
    ...worker,
    timestamp: at - 5,
    queues: ['default', 'extra'],
    pool: 'prefork',
    concurrency: 4,
  },
  { type: 'worker-heartbeat', ...worker, timestamp: at + 9, active: 3, processed: 10, load: [1, 0.5, 0.25], rss: 9e7 },
  { type: 'worker-offline', ...worker, timestamp: at + 10, processed: 11 },
];

function roundTrip(events: readonly CeleriacEvent[]): unknown[] {
  return decodeEventEntry('1764124151570-0', encodeEventEntry(events));
}

describe('event stream entries', () => {
  it('a worker batch reads back as the same events, with ids in the order written', () => {
    const read = roundTrip(workerEvents);
    expect(read).toEqual(workerEvents.map((event, index) => ({ ...event, eventId: `1764124151570-0.${index}` })));
  });

  it('leaves out what an event leaves out (absent optional fields stay absent)', () => {
    const bare: CeleriacEvent[] = [
      { type: 'task-started', taskId: 't-3', task: 'a', queue: 'q', ...worker, timestamp: at },
      { type: 'task-succeeded', taskId: 't-3', task: 'a', queue: 'q', ...worker, timestamp: at, runtime: 0 },
    ];
    const read = roundTrip(bare);
    expect(read).toEqual(bare.map((event, index) => ({ ...event, eventId: `1764124151570-0.${index}` })));
    for (const event of read) expect(Object.keys(event as object)).not.toContain('args');
    expect(Object.keys(read[1] as object)).not.toContain('result');
    expect(Object.keys(read[0] as object)).not.toContain('retries');
  });

  it("stores a sender's events without a worker, and names the worker once per entry", () => {
    const sent: CeleriacEvent[] = [
      { type: 'task-sent', ...task, timestamp: at, eta: at + 60_000, args: '[2,3]', parentId: 'p-1', rootId: 'r-1' },
      { type: 'task-sent', ...task, taskId: 't-4', timestamp: at + 1 },
    ];
    const fields = encodeEventEntry(sent);
    expect(fields).not.toContain('hostname');
    expect(roundTrip(sent)).toEqual(sent.map((event, index) => ({ ...event, eventId: `1764124151570-0.${index}` })));
    const fromWorker = encodeEventEntry(workerEvents);
    expect(fromWorker.filter((field) => field === 'vm')).toHaveLength(1);
  });

  it('keeps events of several workers in one entry as objects, and still reads entries of objects', () => {
    const mixed: CeleriacEvent[] = [
      { type: 'task-started', ...task, ...worker, timestamp: at },
      { type: 'task-started', ...task, hostname: 'other', pid: 1, timestamp: at },
    ];
    expect(encodeEventEntry(mixed)[0]).toBe('e');
    expect(roundTrip(mixed)).toEqual(mixed.map((event, index) => ({ ...event, eventId: `1764124151570-0.${index}` })));
  });

  it('reads a task-started row written before it carried wait (args in the same column)', () => {
    const rows = JSON.stringify([['task-started', 0, 't-1', 'orders.ship', 'default', 0, '[2]']]);
    expect(decodeEventEntry('1764124151570-0', ['rows', rows, 'base', String(at)])).toEqual([
      expect.objectContaining({ type: 'task-started', args: '[2]', timestamp: at }),
    ]);
    const started = { type: 'task-started', ...task, ...worker, timestamp: at, wait: 5 } as const;
    expect(roundTrip([started])).toEqual([{ ...started, eventId: '1764124151570-0.0' }]);
  });

  it('skips what is not an event of ours', () => {
    expect(decodeEventEntry('1-0', ['rows', 'not json', 'base', '1'])).toEqual([]);
    expect(decodeEventEntry('1-0', ['rows', '[["no-such-type",0],[3],"x"]', 'base', '1'])).toEqual([]);
    expect(decodeEventEntry('1-0', ['other', 'field'])).toEqual([]);
  });
});
