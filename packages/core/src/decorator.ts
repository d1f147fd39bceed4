/**
 * The `@task(...)` method decorator. It only records options (with reflect-metadata for
 * TypeScript's legacy decorators, in a WeakMap for standard decorators); `app.register(instance)`
 * turns the decorated methods of an instance into task handles.
 */
import type { CrossingCheck } from './crossable';
import { CeleriacError } from './errors';
import type { TaskOptions } from './options';
import type { TaskFunction, TaskHandle } from './task';

/** Options of `@task(...)`: task options plus the name. */
export interface TaskDecoratorOptions extends TaskOptions {
  /**
   * The task name.
   * @defaultValue `'ClassName.methodName'`
   */
  name?: string;
}

const METADATA_KEY = 'celeriac:task';
const standardDecorated = new WeakMap<object, TaskDecoratorOptions>();

interface ReflectWithMetadata {
  defineMetadata?(key: string, value: unknown, target: object, property: string | symbol): void;
  getMetadata?(key: string, target: object, property: string | symbol): unknown;
}
const reflect = Reflect as unknown as ReflectWithMetadata;

/**
 * Marks a method as a task. Works with TypeScript's `experimentalDecorators` (with `reflect-metadata`
 * imported) and with standard decorators.
 */
export function task(options: TaskDecoratorOptions = {}) {
  return function decorate(target: object, context: string | symbol | { kind: string; name: string | symbol }): void {
    if (typeof context === 'object') {
      // Standard decorator: `target` is the method itself.
      standardDecorated.set(target, options);
      return;
    }
    if (!reflect.defineMetadata) {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        '@task needs reflect-metadata with experimentalDecorators: add `import "reflect-metadata"` at the top of ' +
          'your entry file.',
      );
    }
    reflect.defineMetadata(METADATA_KEY, options, target, context);
  } as MethodDecoratorLike;
}

/**
 * The decorator's type, usable in both decorator modes. The method's type goes through the same
 * check as `app.task`'s function: a method whose arguments or result cannot cross does not compile.
 */
type MethodDecoratorLike = {
  <F extends TaskFunction>(
    target: object,
    property: string | symbol,
    descriptor: TypedPropertyDescriptor<F & CrossingCheck<F>>,
  ): void;
  <F extends TaskFunction>(method: F & CrossingCheck<F>, context: { kind: 'method'; name: string | symbol }): void;
};

/** A decorated method found on an instance. */
export interface DecoratedMethod {
  readonly property: string;
  readonly options: TaskDecoratorOptions;
}

/** Finds the decorated methods of an instance, walking its prototype chain. */
export function findDecoratedMethods(instance: object): DecoratedMethod[] {
  const found = new Map<string, DecoratedMethod>();
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const property of Object.getOwnPropertyNames(proto)) {
      if (property === 'constructor' || found.has(property)) continue;
      const method: unknown = Object.getOwnPropertyDescriptor(proto, property)?.value;
      if (typeof method !== 'function') continue;
      const options =
        (reflect.getMetadata?.(METADATA_KEY, proto, property) as TaskDecoratorOptions | undefined) ??
        standardDecorated.get(method);
      if (options) found.set(property, { property, options });
    }
  }
  return [...found.values()];
}

/** The public methods of `T`, by name: what `app.register` may return handles for. */
export type MethodKeys<T> = { [K in keyof T]: T[K] extends TaskFunction ? K : never }[keyof T] & string;

/**
 * The task handles `app.register(instance, tasks?)` returns, typed from the methods: for the methods
 * `K` named in `tasks` (checked to be `@task` methods when registered), else for every public method.
 * Types cannot see decorators: in the second form a public method that is not a task has a handle
 * in the type, and reading it throws `CELERIAC_NOT_A_TASK` (see docs/tasks.md).
 */
export type RegisteredTasks<T, K extends MethodKeys<T> = MethodKeys<T>> = {
  readonly [P in K]: T[P] extends TaskFunction ? TaskHandle<Parameters<T[P]>, ReturnType<T[P]>> : never;
};
