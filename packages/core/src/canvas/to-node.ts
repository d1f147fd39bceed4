/** Turns a call (name, arguments, options) into a workflow node, callbacks included. */
import type { ApplyOptions, Callbacks, Dependency } from '../options';
import type { Composable } from './composable';
import type { CanvasNode, StepOptions, TaskNode } from './nodes';

/** The node of one call; `link`/`linkError` become nodes, `dependsOn` handles become ids. */
export function toTaskNode(data: {
  task: string;
  args: readonly unknown[];
  options: ApplyOptions;
  immutable: boolean;
}): TaskNode {
  const { link, linkError, dependsOn, ...rest } = data.options;
  const options: StepOptions = rest;
  if (dependsOn !== undefined) options.dependsOn = dependencyIds(dependsOn);
  const node: TaskNode = { kind: 'task', task: data.task, args: [...data.args], options, immutable: data.immutable };
  if (link !== undefined) node.link = callbackNodes(link);
  if (linkError !== undefined) node.linkError = callbackNodes(linkError);
  return node;
}

/** The ids of `dependsOn` entries (ids or result handles). */
export function dependencyIds(dependsOn: NonNullable<ApplyOptions['dependsOn']>): string[] {
  const list = (Array.isArray(dependsOn) ? dependsOn : [dependsOn]) as readonly Dependency[];
  return list.map((entry) => (typeof entry === 'string' ? entry : entry.id));
}

/** The nodes of `link`/`linkError` callbacks (one or a list). */
export function callbackNodes(callbacks: Callbacks): CanvasNode[] {
  const list = (Array.isArray(callbacks) ? callbacks : [callbacks]) as readonly Composable[];
  return list.map((callback) => callback.toNode());
}
