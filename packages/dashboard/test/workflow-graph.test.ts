/**
 * A task's whole workflow, gathered from the task list: from any member, the same tasks, edges and
 * layers (a chain, then a chord whose group members all lead to its callback); a task id that only
 * looks like a group member stays alone; a large workflow is cut to the tasks nearest the one asked.
 */
import type { StoredEvent } from '@celeriac/core';
import { TaskIndex } from '../src/internal/task-index';
import { workflowGraph } from '../src/internal/workflow-graph';

const GROUP = '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b';
let sequence = 0;

function sent(index: TaskIndex, taskId: string, fields: Record<string, unknown> = {}): void {
  sequence += 1;
  const event = { eventId: `${sequence}-0`, type: 'task-sent', queue: 'default', task: 'demo.add', taskId };
  index.add({ ...event, timestamp: sequence, ...fields } as unknown as StoredEvent);
}

/** chain(first, second, chord([member 0, member 1], callback), last), as the worker sends it. */
function workflow(): TaskIndex {
  const index = new TaskIndex(100);
  sent(index, 'first');
  sent(index, 'second', { parentId: 'first', rootId: 'first' });
  sent(index, `${GROUP}:0`, { parentId: 'second', rootId: 'first' });
  sent(index, `${GROUP}:1`, { parentId: 'second', rootId: 'first' });
  sent(index, 'callback', { parentId: GROUP, rootId: 'first' });
  sent(index, 'last', { parentId: 'callback', rootId: 'first' });
  index.add({
    eventId: `${(sequence += 1)}-0`,
    type: 'task-succeeded',
    queue: 'default',
    taskId: 'first',
    timestamp: sequence,
    runtime: 1,
  } as unknown as StoredEvent);
  return index;
}

describe('workflowGraph', () => {
  it('draws the whole workflow, layered, from any of its tasks', () => {
    const index = workflow();
    const graph = workflowGraph(index, 'last', 100);
    expect(graph?.total).toBe(6);
    expect(graph?.nodes.map((node) => [node.id, node.layer, node.state])).toEqual([
      ['first', 0, 'SUCCESS'],
      ['second', 1, 'PENDING'],
      [`${GROUP}:0`, 2, 'PENDING'],
      [`${GROUP}:1`, 2, 'PENDING'],
      ['callback', 3, 'PENDING'],
      ['last', 4, 'PENDING'],
    ]);
    expect(graph?.nodes.filter((node) => node.group === GROUP)).toHaveLength(2);
    expect(graph?.edges).toEqual(
      expect.arrayContaining([
        { from: 'first', to: 'second' },
        { from: 'second', to: `${GROUP}:0` },
        { from: `${GROUP}:0`, to: 'callback' },
        { from: `${GROUP}:1`, to: 'callback' },
        { from: 'callback', to: 'last' },
      ]),
    );
    expect(graph?.edges).toHaveLength(6);
    for (const id of ['first', `${GROUP}:1`, 'callback'])
      expect(workflowGraph(index, id, 100)?.nodes.map((node) => node.id)).toEqual(graph?.nodes.map((node) => node.id));
  });

  it("orders a group's members by their index", () => {
    const index = new TaskIndex(100);
    sent(index, 'start');
    for (const n of [10, 2, 1, 0]) sent(index, `${GROUP}:${n}`, { parentId: 'start', rootId: 'start', timestamp: 1 });
    expect(workflowGraph(index, 'start', 100)?.nodes.map((node) => node.id)).toEqual([
      'start',
      `${GROUP}:0`,
      `${GROUP}:1`,
      `${GROUP}:2`,
      `${GROUP}:10`,
    ]);
  });

  it('links a chord started by the caller (members without a parent) to its callback', () => {
    const index = new TaskIndex(100);
    sent(index, `${GROUP}:0`);
    sent(index, `${GROUP}:1`);
    sent(index, 'callback', { parentId: GROUP, rootId: `${GROUP}:1` });
    expect(workflowGraph(index, `${GROUP}:0`, 100)?.edges).toEqual([
      { from: `${GROUP}:0`, to: 'callback' },
      { from: `${GROUP}:1`, to: 'callback' },
    ]);
  });

  it('leaves a task alone whose id only looks like a group member, and an unknown task', () => {
    const index = new TaskIndex(100);
    sent(index, 'job:1');
    sent(index, 'job:2');
    expect(workflowGraph(index, 'job:1', 100)).toBeUndefined();
    expect(workflowGraph(index, 'nobody', 100)).toBeUndefined();
  });

  it('keeps the tasks nearest the one asked for when the workflow is larger than the limit', () => {
    const index = new TaskIndex(1_000);
    sent(index, 'start');
    for (let n = 0; n < 300; n += 1) sent(index, `${GROUP}:${n}`, { parentId: 'start', rootId: 'start' });
    sent(index, 'after', { parentId: GROUP, rootId: 'start' });
    const graph = workflowGraph(index, 'after', 50);
    expect(graph?.total).toBe(302);
    expect(graph?.nodes).toHaveLength(50);
    expect(graph?.nodes.map((node) => node.id)).toContain('after');
    expect(graph?.nodes.map((node) => node.id)).toContain('start');
    expect(graph?.edges.every((edge) => edge.to === 'after' || edge.from === 'start')).toBe(true);
  });

  it('forgets the links of tasks that leave the task list', () => {
    const index = new TaskIndex(2);
    sent(index, 'a');
    sent(index, 'b', { parentId: 'a', rootId: 'a' });
    sent(index, 'c');
    sent(index, 'd');
    expect(index.links.childrenOf('a')).toEqual([]);
    expect(index.links.rootedAt('a')).toEqual([]);
  });
});
