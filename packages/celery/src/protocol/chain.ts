/**
 * A Celeriac chain as Celery's own: when the steps after a task are plain task calls (no group, no
 * chord, no callbacks), they travel as the body's `embed.chain`, so whichever worker runs a step,
 * Python or Celeriac, sends the next. Anything richer stays a Celeriac workflow (in `x_celeriac`),
 * which only Celeriac workers continue.
 */
import type { WorkflowFields } from '@celeriac/core';
import { splitKwargs } from './kwargs';
import type { CelerySignature } from './payload';

type Node = NonNullable<WorkflowFields['then']>[number];

/**
 * The rest of the chain as Celery signatures, last step first (a worker pops from the end), or
 * undefined when the workflow is not a plain chain. A step without a queue goes to `queue`.
 */
export function celeryChainOf(workflow: WorkflowFields | undefined, queue: string): CelerySignature[] | undefined {
  if (!workflow?.then || workflow.member || workflow.link || workflow.linkError) return undefined;
  const steps: CelerySignature[] = [];
  const add = (node: Node): boolean => {
    if (node.kind === 'chain') return node.steps.every(add);
    if (node.kind !== 'task' || node.link || node.linkError || node.options.dependsOn) return false;
    const { args, kwargs } = splitKwargs(node.args);
    const options: Record<string, unknown> = { queue: node.options.queue ?? queue };
    if (node.options.taskId !== undefined) options.task_id = node.options.taskId;
    if (node.options.priority !== undefined) options.priority = node.options.priority;
    steps.push({ task: node.task, args, kwargs, options, subtask_type: null, immutable: node.immutable });
    return true;
  };
  return workflow.then.every(add) ? steps.reverse() : undefined;
}
