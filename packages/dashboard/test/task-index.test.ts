/**
 * The task list folds events into one summary per task: the latest event decides the state even
 * when events are read out of order, a resend starts a new run, and the oldest go past maxTasks.
 */
import { Codec, type StoredEvent } from '@celeriac/core';
import { eventPayloadOf } from '@celeriac/core/internal';
import { payloadText } from '../src/internal/preview';
import { TaskIndex } from '../src/internal/task-index';

let sequence = 0;
function event(fields: Record<string, unknown>): StoredEvent {
  sequence += 1;
  return { eventId: `${sequence}-0`, queue: 'default', task: 'demo.add', ...fields } as unknown as StoredEvent;
}

describe('TaskIndex', () => {
  it('keeps the state of the latest event, whatever the order they are read in', () => {
    const index = new TaskIndex(10);
    index.add(event({ type: 'task-started', taskId: 'a', timestamp: 20, hostname: 'w1', args: '{"json":[1,2]}' }));
    index.add(event({ type: 'task-succeeded', taskId: 'a', timestamp: 30, runtime: 10, hostname: 'w1' }));
    index.add(event({ type: 'task-sent', taskId: 'a', timestamp: 10 }));
    expect(index.get('a')).toMatchObject({ state: 'SUCCESS', worker: 'w1', sent: 10, started: 20, runtime: 10 });
  });

  it('starts a new run on a resend after a failure, and clears the old error once it is received', () => {
    const index = new TaskIndex(10);
    index.add(event({ type: 'task-failed', taskId: 'a', timestamp: 10, error: { name: 'Error', message: 'no' } }));
    index.add(event({ type: 'task-sent', taskId: 'a', timestamp: 20 }));
    expect(index.get('a')?.state).toBe('PENDING');
    index.add(event({ type: 'task-received', taskId: 'a', timestamp: 30, delivery: 1 }));
    expect(index.get('a')).toMatchObject({ state: 'RECEIVED' });
    expect(index.get('a')?.error).toBeUndefined();
  });

  it('filters, lists the most recently changed first, and forgets the oldest past maxTasks', () => {
    const index = new TaskIndex(2);
    index.add(event({ type: 'task-sent', taskId: 'a', timestamp: 1, task: 'mail.send' }));
    index.add(event({ type: 'task-sent', taskId: 'b', timestamp: 2, queue: 'reports' }));
    index.add(event({ type: 'task-failed', taskId: 'c', timestamp: 3, error: { name: 'E', message: 'x' } }));
    expect(index.get('a')).toBeUndefined();
    expect(index.query({}).map((task) => task.id)).toEqual(['c', 'b']);
    expect(index.query({ state: 'FAILURE' }).map((task) => task.id)).toEqual(['c']);
    expect(index.query({ queue: 'reports' }).map((task) => task.id)).toEqual(['b']);
    expect(index.query({ text: 'C' }).map((task) => task.id)).toEqual(['c']);
    expect(index.query({ from: 3 }).map((task) => task.id)).toEqual(['c']);
  });

  it("searches the arguments as the page shows them, from the app's codec, not their wire form", () => {
    const codec = new Codec();
    const index = new TaskIndex(10, (payload) => payloadText(codec, payload));
    const args = (value: unknown[]) => eventPayloadOf(codec, value, 1_000);
    index.add(event({ type: 'task-sent', taskId: 'sum', timestamp: 1, args: args([2, 3]) }));
    index.add(event({ type: 'task-sent', taskId: 'big', timestamp: 2, args: args([new Map([['k', 12n]])]) }));
    expect(index.query({ text: '2, 3' }).map((task) => task.id)).toEqual(['sum']);
    expect(index.query({ text: "'k' => 12n" }).map((task) => task.id)).toEqual(['big']);
    expect(index.query({ text: '"json"' })).toEqual([]);
  });

  it('knows the children of a task from the parent their task-sent names', () => {
    const index = new TaskIndex(10);
    index.add(event({ type: 'task-sent', taskId: 'first', timestamp: 1 }));
    index.add(event({ type: 'task-sent', taskId: 'second', timestamp: 2, parentId: 'first', rootId: 'first' }));
    index.add(event({ type: 'task-sent', taskId: 'third', timestamp: 3, parentId: 'second', rootId: 'first' }));
    expect(index.links.childrenOf('first')).toEqual(['second']);
    expect(index.get('third')).toMatchObject({ parentId: 'second', rootId: 'first' });
  });
});
