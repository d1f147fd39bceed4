import { alignGroupTtls } from '../src/canvas/group-ttl';
import type { CanvasNode, TaskNode } from '../src/canvas/nodes';

const task = (name: string, resultTtl?: number): TaskNode => ({
  kind: 'task',
  task: name,
  args: [],
  options: resultTtl === undefined ? {} : { resultTtl },
  immutable: false,
});
/** 'long' tasks keep results 60 s, the others 10 s (or their own resultTtl). */
const ttlOf = (step: TaskNode) => Number(step.options.resultTtl ?? (step.task === 'long' ? 60_000 : 10_000));
const ttlsOf = (node: CanvasNode): unknown[] =>
  node.kind === 'task' ? [node.options.resultTtl] : (node.kind === 'group' ? node.members : node.steps).flatMap(ttlsOf);

describe('alignGroupTtls', () => {
  it('returns a group of members that already share the longest TTL as it is, not a copy', () => {
    const group: CanvasNode = { kind: 'group', id: 'g', members: [task('short'), task('short'), task('short')] };
    expect(alignGroupTtls(group, ttlOf)).toBe(group);
  });

  it('gives a shorter-lived member the longest TTL, and leaves the longest as it is', () => {
    const longest = task('long');
    const group: CanvasNode = { kind: 'group', id: 'g', members: [task('short'), longest, task('short', 5_000)] };
    const aligned = alignGroupTtls(group, ttlOf);
    expect(ttlsOf(aligned)).toEqual([60_000, undefined, 60_000]);
    expect(aligned.kind === 'group' && aligned.members[1]).toBe(longest);
    expect(ttlsOf(group)).toEqual([undefined, undefined, 5_000]); // the input is not changed
  });

  it('writes the TTL into steps sent later by a worker, even where it is already the longest', () => {
    const later: CanvasNode = { kind: 'group', id: 'g', members: [task('short'), task('short')] };
    const workflow: CanvasNode = { kind: 'chain', steps: [task('first'), later] };
    expect(ttlsOf(alignGroupTtls(workflow, ttlOf))).toEqual([undefined, 10_000, 10_000]);
    // A chain member's result is its last step, run later: it carries the TTL too.
    const member: CanvasNode = { kind: 'chain', steps: [task('short'), task('short')] };
    const group: CanvasNode = { kind: 'group', id: 'g', members: [member, task('short')] };
    expect(ttlsOf(alignGroupTtls(group, ttlOf))).toEqual([undefined, 10_000, undefined]);
  });
});
