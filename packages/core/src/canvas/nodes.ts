/**
 * Workflows as plain data. A canvas (chain, group, chord, callbacks) becomes a tree of nodes with
 * every task id chosen up front; task messages carry the part of the tree that runs after them, so
 * the worker that finishes a step publishes the next one and no coordinator is needed.
 */
import type { CallOptions } from '../call-options';

/** The call options a step carries: callbacks are nodes of their own, dependencies are ids. */
export type StepOptions = CallOptions & { dependsOn?: string[] };

/** One task call. Once frozen, `options.taskId` is set. */
export interface TaskNode {
  kind: 'task';
  task: string;
  args: unknown[];
  options: StepOptions;
  /** True for `si()`: the parent's result is not passed in. */
  immutable: boolean;
  /** Run with this task's result when it succeeds. */
  link?: CanvasNode[];
  /** Run with `(taskId, error)` when this task fails for good. */
  linkError?: CanvasNode[];
}

/** Members that run in parallel; once frozen, `id` is set and member `i`'s result id is `<id>:<i>`. */
export interface GroupNode {
  kind: 'group';
  id?: string;
  members: CanvasNode[];
}

/** Steps that run one after another, each result feeding the next. */
export interface ChainNode {
  kind: 'chain';
  steps: CanvasNode[];
}

/** A workflow as data. A chord is a chain whose group is followed by a step. */
export type CanvasNode = TaskNode | GroupNode | ChainNode;

/** A task's place in a group that a body waits for (a chord header). */
export interface GroupMembership {
  /** The group id. */
  group: string;
  index: number;
  size: number;
  /** What runs once every member succeeded; the list of results goes to its first step. */
  body: Continuation;
}

/** What runs after a task: the rest of its chain, then the chain's place in a group, if any. */
export interface Continuation {
  steps: CanvasNode[];
  member?: GroupMembership;
}

/**
 * The workflow fields of a task message: what runs after the task (its `workflow`, which travels
 * under the wire key `flow`, see message.ts).
 */
export interface WorkflowFields {
  /** The steps after this task in its chain. */
  then?: CanvasNode[];
  /** The group this task's chain completes a member of. */
  member?: GroupMembership;
  link?: CanvasNode[];
  linkError?: CanvasNode[];
}

/** @deprecated The former name of {@link WorkflowFields}, kept so code that imports it still compiles. */
export type Flow = WorkflowFields;

/** The id of a member's result in a group. */
export function memberId(groupId: string, index: number): string {
  return `${groupId}:${index}`;
}

/** Every task of a tree, callbacks excluded: the steps a failure upstream settles. */
export function tasksOf(nodes: readonly CanvasNode[]): TaskNode[] {
  const tasks: TaskNode[] = [];
  const visit = (node: CanvasNode): void => {
    if (node.kind === 'task') tasks.push(node);
    else for (const child of node.kind === 'group' ? node.members : node.steps) visit(child);
  };
  for (const node of nodes) visit(node);
  return tasks;
}

/** The first task a continuation publishes (a chord that ran its body has a record for it). */
export function firstTaskOf(node: CanvasNode): TaskNode {
  if (node.kind === 'task') return node;
  const first = node.kind === 'group' ? node.members[0] : node.steps[0];
  if (!first) throw new Error('empty canvas node');
  return firstTaskOf(first);
}

/**
 * The `meta` of a record stored for a step that did not run. `causeTask` is set when the recorded
 * error is the one step `cause` raised (not an error about the workflow, such as a ChordError).
 */
export interface StepFailureMeta {
  reason: string;
  /** The id of the step whose end settled this one. */
  cause: string;
  /** The task name of that step, when the record carries its own error. */
  causeTask?: string;
}
