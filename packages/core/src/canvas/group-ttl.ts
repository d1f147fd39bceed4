/**
 * A group's results expire together: every member's result gets the longest TTL any member would
 * have had (its own option, its task's, or the app's), so a group is never half expired while its
 * members' records live on.
 */
import type { CanvasNode, TaskNode } from './nodes';

/**
 * Returns `node` with the result TTL of each group's members aligned; `ttlOf` gives a step's TTL in
 * ms. Only what changes is copied: a member sent by this launch whose TTL is the longest already
 * keeps its options (its message gets that TTL from `ttlOf` too), so a group of one task's calls,
 * the usual case, is not copied member by member. Steps that run later carry the TTL in their
 * options, since another process (with other defaults) sends them.
 */
export function alignGroupTtls(node: CanvasNode, ttlOf: (step: TaskNode) => number): CanvasNode {
  return align(node, ttlOf, true);
}

/** `sentNow`: the node's first steps are sent by this launch (not later, by a worker). */
function align(node: CanvasNode, ttlOf: (step: TaskNode) => number, sentNow: boolean): CanvasNode {
  switch (node.kind) {
    case 'task':
      return node;
    case 'chain': {
      const steps = node.steps.map((step, index) => align(step, ttlOf, sentNow && index === 0));
      return steps.every((step, index) => step === node.steps[index]) ? node : { ...node, steps };
    }
    case 'group': {
      const members = node.members.map((member) => align(member, ttlOf, sentNow));
      const ttls = members.map((member) => ttlOf(resultTask(member)));
      // A loop, not Math.max(...): a spread of 100,000 arguments overflows the stack.
      let ttl = -Infinity;
      for (const memberTtl of ttls) ttl = Math.max(ttl, memberTtl);
      const aligned = members.map((member, index) =>
        sentNow && member.kind === 'task' && ttls[index] === ttl ? member : withResultTtl(member, ttl),
      );
      return aligned.every((member, index) => member === node.members[index]) ? node : { ...node, members: aligned };
    }
  }
}

/** The task whose result is a member's result: the member, or the last step of a chain. */
function resultTask(node: CanvasNode): TaskNode {
  if (node.kind === 'task') return node;
  const last = node.kind === 'chain' ? node.steps[node.steps.length - 1] : undefined;
  if (!last) throw new Error('a group member must end in a task');
  return resultTask(last);
}

function withResultTtl(node: CanvasNode, ttl: number): CanvasNode {
  if (node.kind === 'task') return { ...node, options: { ...node.options, resultTtl: ttl } };
  if (node.kind === 'chain')
    return {
      ...node,
      steps: node.steps.map((step, index) => (index === node.steps.length - 1 ? withResultTtl(step, ttl) : step)),
    };
  return node;
}
