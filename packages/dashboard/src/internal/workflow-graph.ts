/**
 * A task's whole workflow as a graph, from the dashboard's task list: every task linked to it by a
 * parent, a root or a group (see workflow-links.ts), with an edge from each step to what it started
 * and from each member of a chord's group to the chord's callback. Layered for drawing top to
 * bottom: a task's layer is one past the deepest of the tasks before it.
 *
 * Bounded: the whole workflow is walked by ids (cheap), and the `limit` tasks nearest the asked one
 * (fewest links away) are described; `total` says how many there are.
 */
import type { TaskIndex, TaskSummary } from './task-index';
import { memberOf } from './workflow-links';

/** One task of the graph. */
export interface WorkflowNode {
  id: string;
  name?: string;
  state: string;
  /** The group it is a member of (members of one group are drawn side by side). */
  group?: string;
  /** 0 for a task nothing before it in the graph started; one past its deepest predecessor otherwise. */
  layer: number;
  /** Epoch ms of its `task-sent` (orders tasks of one layer). */
  sent?: number;
}

/** `from` started `to` (or `to` is the callback of the chord whose group `from` is a member of). */
export interface WorkflowEdge {
  from: string;
  to: string;
}

/** A workflow, or the part of it nearest one task. */
export interface WorkflowGraph {
  /** The task asked for. */
  id: string;
  /** The tasks drawn, by layer then by when they were sent. */
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** How many tasks the workflow has in the task list (more than `nodes` when it was cut). */
  total: number;
}

/** The workflow of task `id`, or undefined when it is a task alone (or unknown). */
export function workflowGraph(index: TaskIndex, id: string, limit: number): WorkflowGraph | undefined {
  if (!index.get(id)) return undefined;
  const ids = reachable(index, id);
  if (ids.length < 2) return undefined;
  const kept = new Set(ids.slice(0, Math.max(1, limit)));
  const tasks = [...kept].flatMap((taskId) => index.get(taskId) ?? []);
  const edges = edgesOf(index, tasks, kept);
  const layers = layersOf(tasks, edges);
  const nodes = tasks.map((task) => nodeOf(index, task, layers.get(task.id) ?? 0));
  nodes.sort((a, b) => a.layer - b.layer || order(a, b));
  return { id, nodes, edges, total: ids.length };
}

/** Every task linked to `id`, nearest first (breadth first). */
function reachable(index: TaskIndex, id: string): string[] {
  const seen = new Set([id]);
  const queue = [id];
  // A root's or a group's list is read once, not once per task of it (a group of 10,000 members).
  const expanded = new Set<string>();
  const once = (key: string, read: () => readonly string[]) => {
    if (expanded.has(key)) return [];
    expanded.add(key);
    return read();
  };
  const { links } = index;
  for (let next = 0; next < queue.length; next += 1) {
    const current = queue[next] as string;
    const task = index.get(current);
    const { parentId, rootId } = task ?? {};
    const group = links.groupOf(current);
    // The steps before and after first, so a cut workflow keeps its spine rather than one wide group.
    const found = [
      ...(parentId === undefined ? [] : [parentId]),
      ...(rootId === undefined ? [] : [rootId]),
      ...links.childrenOf(current),
      ...(group === undefined ? [] : links.childrenOf(group)),
      ...(parentId === undefined ? [] : once(`group ${parentId}`, () => links.membersOf(parentId))),
      ...(group === undefined ? [] : once(`group ${group}`, () => links.membersOf(group))),
      ...once(`root ${current}`, () => links.rootedAt(current)),
      ...(rootId === undefined ? [] : once(`root ${rootId}`, () => links.rootedAt(rootId))),
    ];
    for (const neighbour of found) {
      if (seen.has(neighbour) || !index.get(neighbour)) continue;
      seen.add(neighbour);
      queue.push(neighbour);
    }
  }
  return queue;
}

/** The edges among the `kept` tasks: parent to child, and group members to the chord's callback. */
function edgesOf(index: TaskIndex, tasks: readonly TaskSummary[], kept: ReadonlySet<string>): WorkflowEdge[] {
  const edges: WorkflowEdge[] = [];
  for (const task of tasks) {
    const parent = task.parentId;
    if (parent === undefined) continue;
    const from = kept.has(parent)
      ? [parent]
      : index.links.membersOf(parent).filter((member) => kept.has(member) && member !== task.id);
    for (const source of from) edges.push({ from: source, to: task.id });
  }
  return edges;
}

/** Each task's layer: longest path from a task with no predecessor (a cycle, which ids rule out, ends at 0). */
function layersOf(tasks: readonly TaskSummary[], edges: readonly WorkflowEdge[]): Map<string, number> {
  const incoming = new Map(tasks.map((task) => [task.id, 0]));
  const after = new Map<string, string[]>();
  for (const edge of edges) {
    incoming.set(edge.to, (incoming.get(edge.to) ?? 0) + 1);
    const next = after.get(edge.from);
    if (next) next.push(edge.to);
    else after.set(edge.from, [edge.to]);
  }
  const layers = new Map<string, number>();
  const ready = tasks.filter((task) => incoming.get(task.id) === 0).map((task) => task.id);
  for (const id of ready) layers.set(id, 0);
  for (let next = 0; next < ready.length; next += 1) {
    const id = ready[next] as string;
    for (const to of after.get(id) ?? []) {
      layers.set(to, Math.max(layers.get(to) ?? 0, (layers.get(id) ?? 0) + 1));
      const left = (incoming.get(to) ?? 1) - 1;
      incoming.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  return layers;
}

/** Members of one group by their index (`:2` before `:10`), other tasks by when they were sent. */
function order(a: WorkflowNode, b: WorkflowNode): number {
  if (a.group !== undefined && a.group === b.group) return (memberOf(a.id)?.index ?? 0) - (memberOf(b.id)?.index ?? 0);
  return (a.sent ?? 0) - (b.sent ?? 0) || a.id.localeCompare(b.id);
}

function nodeOf(index: TaskIndex, task: TaskSummary, layer: number): WorkflowNode {
  const group = index.links.groupOf(task.id);
  return {
    id: task.id,
    ...(task.name === undefined ? {} : { name: task.name }),
    state: task.state,
    ...(group === undefined ? {} : { group }),
    layer,
    ...(task.sent === undefined ? {} : { sent: task.sent }),
  };
}
