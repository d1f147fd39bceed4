/**
 * How the tasks of the dashboard's task list hang together in workflows, indexed both ways so a
 * whole workflow is gathered without scanning every task: children by parent, tasks by the
 * workflow's first task (root), and group members by group.
 *
 * What the event log tells: a step's `task-sent` names its `parentId` (the step it continues, or
 * for a chord's callback the group it waited for) and its `rootId`. A group's members have the ids
 * `<group>:<n>`; such an id is read as a member when its group is a generated id (a UUID) or some
 * task names the group as its parent, so a task id a user chose like `job:1` stays a task alone.
 */

/** The fields of a task summary the links are built from. */
export interface Linked {
  readonly id: string;
  readonly parentId?: string;
  readonly rootId?: string;
}

const MEMBER_ID = /^(.+):(\d+)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The group and index a member id `<group>:<n>` names, if it has that shape. */
export function memberOf(id: string): { group: string; index: number } | undefined {
  const match = MEMBER_ID.exec(id);
  return match ? { group: match[1] as string, index: Number(match[2]) } : undefined;
}

/** Sets of ids by key, that forget a key once its set is empty. */
class Multimap {
  private readonly sets = new Map<string, Set<string>>();

  add(key: string, id: string): void {
    let set = this.sets.get(key);
    if (!set) this.sets.set(key, (set = new Set()));
    set.add(id);
  }

  delete(key: string, id: string): void {
    const set = this.sets.get(key);
    if (!set) return;
    set.delete(id);
    if (set.size === 0) this.sets.delete(key);
  }

  get(key: string): readonly string[] {
    return [...(this.sets.get(key) ?? [])];
  }

  has(key: string): boolean {
    return this.sets.has(key);
  }
}

/** The workflow links of the tasks the dashboard keeps. */
export class WorkflowLinks {
  private readonly byParent = new Multimap();
  private readonly byRoot = new Multimap();
  private readonly byGroup = new Multimap();

  /** Records (again) what `task` links to; idempotent. */
  add(task: Linked): void {
    if (task.parentId !== undefined) this.byParent.add(task.parentId, task.id);
    if (task.rootId !== undefined) this.byRoot.add(task.rootId, task.id);
    const member = memberOf(task.id);
    if (member) this.byGroup.add(member.group, task.id);
  }

  /** Forgets `task` (it left the task list). */
  delete(task: Linked): void {
    if (task.parentId !== undefined) this.byParent.delete(task.parentId, task.id);
    if (task.rootId !== undefined) this.byRoot.delete(task.rootId, task.id);
    const member = memberOf(task.id);
    if (member) this.byGroup.delete(member.group, task.id);
  }

  /** The tasks whose parent is `id` (a task's next steps and callbacks, a chord's callback). */
  childrenOf(id: string): readonly string[] {
    return this.byParent.get(id);
  }

  /** The tasks that name `id` as their workflow's first task. */
  rootedAt(id: string): readonly string[] {
    return this.byRoot.get(id);
  }

  /** The group `id` is a member of, when it is one (see the module comment). */
  groupOf(id: string): string | undefined {
    const member = memberOf(id);
    if (!member) return undefined;
    return UUID.test(member.group) || this.byParent.has(member.group) ? member.group : undefined;
  }

  /** The known members of group `group`. */
  membersOf(group: string): readonly string[] {
    return this.byGroup.get(group);
  }
}
