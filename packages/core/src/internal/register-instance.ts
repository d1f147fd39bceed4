/**
 * `app.register(instance, tasks?)`: registers the `@task` methods of an instance and builds the
 * object of their handles. Types cannot see decorators, so that object guards itself: reading a
 * method of the instance that is not a task throws at once, instead of sending a message that no
 * worker can run.
 */
import { findDecoratedMethods } from '../decorator';
import { CeleriacError } from '../errors';
import type { TaskOptions } from '../options';
import type { TaskFunction } from '../task';

/** Registers one method as a task and returns its handle (the app's `task`). */
export type RegisterTask = (name: string, fn: TaskFunction, options: TaskOptions) => unknown;

/**
 * Registers every decorated method of `instance` and returns the handles: of the methods named in
 * `tasks` (each must be decorated), or of every decorated method, guarded against other names.
 * @throws CeleriacError `CELERIAC_NO_TASKS` when no method is decorated; `CELERIAC_NOT_A_TASK` when
 * `tasks` names a method that is not.
 */
export function registerInstance(
  instance: object,
  tasks: readonly string[] | undefined,
  registerTask: RegisterTask,
): Record<string, unknown> {
  const methods = findDecoratedMethods(instance);
  const className = instance.constructor?.name ?? 'Anonymous';
  if (methods.length === 0) {
    throw new CeleriacError(
      'CELERIAC_NO_TASKS',
      `${className} has no @task-decorated methods. Decorate at least one method with @task().`,
    );
  }
  const decorated = new Set(methods.map(({ property }) => property));
  const undecorated = (tasks ?? []).filter((property) => !decorated.has(property));
  if (undecorated.length > 0) {
    throw notATask(
      className,
      undecorated.join(', '),
      'decorate it with @task() or leave it out of the list given to app.register',
    );
  }
  const handles: Record<string, unknown> = {};
  for (const { property, options } of methods) {
    const { name = `${className}.${property}`, ...taskOptions } = options;
    const method = (instance as Record<string, TaskFunction>)[property] as TaskFunction;
    const handle = registerTask(name, method.bind(instance), taskOptions);
    if (!tasks || tasks.includes(property)) handles[property] = handle;
  }
  return tasks ? handles : guarded(handles, instance, className);
}

/** The handles, throwing on a read of a method of the instance that has none. */
function guarded(handles: Record<string, unknown>, instance: object, className: string): Record<string, unknown> {
  return new Proxy(handles, {
    get(target, property, receiver) {
      if (
        typeof property === 'string' &&
        !(property in target) &&
        typeof (instance as Record<string, unknown>)[property] === 'function'
      ) {
        throw notATask(
          className,
          property,
          'only @task-decorated methods have handles; decorate it, or make it private',
        );
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

function notATask(className: string, properties: string, advice: string): CeleriacError {
  return new CeleriacError('CELERIAC_NOT_A_TASK', `${className}.${properties} is not a task: ${advice}.`);
}
