/**
 * A group's results expire together: every member's result gets the longest TTL any member would
 * have had (its own option, its task's, or the app's), so a group is never half expired while its
 * members' records live on.
 */
import type { CanvasNode, TaskNode } from './nodes';

/** Returns `node` with the result TTL of each group's members aligned; `ttlOf` gives a step's TTL in ms. */
export function alignGroupTtls(node: CanvasNode, ttlOf: (step: TaskNode) => number): CanvasNode {
  switch (node.kind) {
    case 'task':
      return node;
    case 'chain':
      return { ...node, steps: node.steps.map((step) => alignGroupTtls(step, ttlOf)) };
    case 'group': {
      const members = node.members.map((member) => alignGroupTtls(member, ttlOf));
      // A loop, not Math.max(...): a spread of 100,000 arguments overflows the stack.
      let ttl = -Infinity;
      for (const member of members) ttl = Math.max(ttl, ttlOf(resultTask(member)));
      return { ...node, members: members.map((member) => withResultTtl(member, ttl)) };
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
