/** The task registry: names to functions and options, one per app. */
import { CeleriacError } from './errors';
import type { TaskOptions } from './options';

/** A registered task as the worker sees it. */
export interface TaskDefinition {
  readonly name: string;
  /** The implementation, bound to its instance for decorated methods. */
  readonly fn: (...args: unknown[]) => unknown;
  readonly options: Readonly<TaskOptions>;
}

/** Holds the tasks an app registered; names are unique. */
export class TaskRegistry {
  private readonly tasks = new Map<string, TaskDefinition>();

  /** @throws CeleriacError `CELERIAC_DUPLICATE_TASK` when the name is taken. */
  add(definition: TaskDefinition): void {
    if (this.tasks.has(definition.name)) {
      throw new CeleriacError(
        'CELERIAC_DUPLICATE_TASK',
        `A task named "${definition.name}" is already registered. Give one of them another name.`,
      );
    }
    this.tasks.set(definition.name, definition);
  }

  /** The task called `name`, or undefined. */
  get(name: string): TaskDefinition | undefined {
    return this.tasks.get(name);
  }

  /** Every registered name, in registration order. */
  names(): string[] {
    return [...this.tasks.keys()];
  }

  /** The registered names for an error message: `none`, the list, or its first ten and the count. */
  describeNames(): string {
    const known = this.names();
    if (known.length === 0) return 'none';
    if (known.length <= 10) return known.join(', ');
    return `${known.slice(0, 10).join(', ')}, ... (${known.length} in all)`;
  }
}
