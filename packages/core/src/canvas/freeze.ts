/**
 * Freezing: gives every task and group of a workflow its id before anything is sent, so the caller
 * holds handles on every result at once and a step published twice (a re-run) is the same task.
 */
import { randomUUID } from 'node:crypto';
import { CeleriacError } from '../errors';
import { memberId, type CanvasNode, type TaskNode } from './nodes';

/**
 * Returns a copy of `node` with ids set; checks the shape.
 * @throws CeleriacError `CELERIAC_INVALID_CANVAS` for an empty chain or group, or a group whose
 * result would be a member of another group.
 */
export function freeze(node: CanvasNode): CanvasNode {
  return freezeNode(node, undefined);
}

/** `resultId`: the id the node's result must have (set for the members of a group). */
function freezeNode(node: CanvasNode, resultId: string | undefined): CanvasNode {
  switch (node.kind) {
    case 'task':
      return freezeTask(node, resultId);
    case 'chain': {
      const steps = flatten(node.steps);
      if (steps.length === 0) throw invalid('A chain needs at least one step.');
      return {
        kind: 'chain',
        steps: steps.map((step, index) => freezeNode(step, index === steps.length - 1 ? resultId : undefined)),
      };
    }
    case 'group': {
      if (resultId !== undefined) {
        throw invalid(
          'A group cannot be the result of a group member (a group in a group, or a chain ending in a group inside a ' +
            'group). Add a step after it, e.g. chord(inner, collect.s()).',
        );
      }
      if (node.members.length === 0) throw invalid('A group needs at least one member.');
      const id = node.id ?? randomUUID();
      return {
        kind: 'group',
        id,
        members: node.members.map((member, index) => freezeNode(member, memberId(id, index))),
      };
    }
  }
}

function freezeTask(node: TaskNode, resultId: string | undefined): TaskNode {
  const frozen: TaskNode = {
    ...node,
    options: { ...node.options, taskId: resultId ?? node.options.taskId ?? randomUUID() },
  };
  if (node.link) frozen.link = node.link.map(freeze);
  if (node.linkError) frozen.linkError = node.linkError.map(freeze);
  return frozen;
}

/** Nested chains run as one: `chain(a, chain(b, c))` is `chain(a, b, c)`. */
function flatten(steps: readonly CanvasNode[]): CanvasNode[] {
  return steps.flatMap((step) => (step.kind === 'chain' ? flatten(step.steps) : [step]));
}

function invalid(message: string): CeleriacError {
  return new CeleriacError('CELERIAC_INVALID_CANVAS', message);
}
