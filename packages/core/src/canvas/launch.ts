/**
 * Launching: works out the tasks a (frozen) workflow starts with, each with its arguments and the
 * workflow fields its message carries. The caller uses it to start a workflow; a worker uses it to
 * start what comes after a finished step.
 */
import type { CanvasNode, Continuation, TaskNode, WorkflowFields } from './nodes';

/** One task to publish. */
export interface PlannedTask {
  node: TaskNode;
  args: unknown[];
  workflow: WorkflowFields;
}

/**
 * The first tasks of `node`, each given `parentArgs` (a parent's result) before its own arguments;
 * `next` is what runs after `node` finishes.
 */
export function planLaunch(
  node: CanvasNode,
  parentArgs: readonly unknown[],
  next: Continuation = { steps: [] },
): PlannedTask[] {
  const planned: PlannedTask[] = [];
  forEachLaunch(node, parentArgs, next, (task) => planned.push(task));
  return planned;
}

/**
 * Like {@link planLaunch}, one task at a time: a caller that turns each into a message at once
 * never holds the whole plan (100,000 objects for a group of 100,000).
 */
export function forEachLaunch(
  node: CanvasNode,
  parentArgs: readonly unknown[],
  next: Continuation,
  each: (task: PlannedTask) => void,
): void {
  visit(node, parentArgs, next, { push: each });
}

function visit(
  node: CanvasNode,
  parentArgs: readonly unknown[],
  next: Continuation,
  planned: { push(task: PlannedTask): void },
): void {
  switch (node.kind) {
    case 'task': {
      const args = node.immutable ? [...node.args] : [...parentArgs, ...node.args];
      const workflow: WorkflowFields = {};
      if (next.steps.length > 0) workflow.then = next.steps;
      if (next.member) workflow.member = next.member;
      if (node.link) workflow.link = node.link;
      if (node.linkError) workflow.linkError = node.linkError;
      planned.push({ node, args, workflow });
      return;
    }
    case 'chain': {
      const [first, ...rest] = node.steps;
      if (first) visit(first, parentArgs, { ...next, steps: [...rest, ...next.steps] }, planned);
      return;
    }
    case 'group': {
      const id = node.id as string;
      // A plain group ends here; a group with steps after it is a chord: its members count down.
      const body = next.steps.length > 0 ? next : undefined;
      node.members.forEach((member, index) => {
        const after: Continuation = body
          ? { steps: [], member: { group: id, index, size: node.members.length, body } }
          : { steps: [] };
        visit(member, parentArgs, after, planned);
      });
      return;
    }
  }
}
