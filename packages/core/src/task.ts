/**
 * Task handles: what `app.task(...)` and `app.register(...)` return. A handle is callable (runs the
 * function here and now) and sends the task with `delay`, `applyAsync`, `delayMany`, `s` and `si`.
 */
import type { AsyncResult } from './async-result';
import { CeleriacError } from './errors';
import type { ApplyOptions, TaskOptions } from './options';
import { Signature, type SignatureSender } from './signature';

/** Any function that can be a task. */
export type TaskFunction = (...args: never[]) => unknown;

/** Every tail of an argument list: the arguments a partial signature may fix. */
export type ArgsTail<A extends readonly unknown[]> = A extends readonly [unknown, ...infer Rest]
  ? A | ArgsTail<Rest>
  : A;

/** A registered task, typed by its arguments `A` and its result `R`. */
export interface TaskHandle<A extends unknown[] = unknown[], R = unknown> {
  /** Runs the task function in this process, now (no broker, no worker). */
  (...args: A): R;
  /** The registered task name. */
  readonly name: string;
  /** The task's options as registered. */
  readonly options: Readonly<TaskOptions<Awaited<R>>>;
  /** Sends the task with these arguments; returns at once. */
  delay(...args: A): AsyncResult<Awaited<R>>;
  /** Sends the task with call options (countdown, eta, expires, priority, queue, taskId, ...). */
  applyAsync(args: A, options?: ApplyOptions): AsyncResult<Awaited<R>>;
  /** Sends many calls in as few round trips as possible. */
  delayMany(argsList: readonly A[], options?: ApplyOptions): Array<AsyncResult<Awaited<R>>>;
  /** A partial signature: a parent's result is put before `args` when it runs in a chain. */
  s(...args: ArgsTail<A>): Signature<Awaited<R>>;
  /** An immutable signature: runs with exactly `args`. */
  si(...args: A): Signature<Awaited<R>>;
}

/** Sends tasks; the app implements it. */
export interface TaskSender extends SignatureSender {
  /** Sends one call of a registered task, applying the task's own options under the call's. */
  applyTask<R>(name: string, args: readonly unknown[], options: ApplyOptions | undefined): AsyncResult<R>;
}

/** Builds the handle of a task. */
export function createTaskHandle<F extends TaskFunction>(
  sender: TaskSender,
  name: string,
  fn: F,
  options: TaskOptions<Awaited<ReturnType<F>>>,
): TaskHandle<Parameters<F>, ReturnType<F>> {
  type A = Parameters<F>;
  type R = Awaited<ReturnType<F>>;
  const handle = ((...args: A) => fn(...args)) as TaskHandle<A, ReturnType<F>>;
  Object.defineProperty(handle, 'name', { value: name });
  const methods = {
    options: Object.freeze({ ...options }),
    delay: (...args: A) => sender.applyTask<R>(name, args, undefined),
    applyAsync: (args: A, callOptions?: ApplyOptions) => sender.applyTask<R>(name, args, callOptions),
    delayMany: (argsList: readonly A[], callOptions?: ApplyOptions) => {
      if (callOptions?.taskId !== undefined) {
        throw new CeleriacError(
          'CELERIAC_INVALID_OPTION',
          `delayMany cannot take a taskId: every call needs its own id. Use applyAsync for each call instead.`,
        );
      }
      return argsList.map((args) => sender.applyTask<R>(name, args, callOptions));
    },
    s: (...args: ArgsTail<A>) =>
      new Signature<R>(sender, { task: name, args: [...args], options: {}, immutable: false }),
    si: (...args: A) => new Signature<R>(sender, { task: name, args: [...args], options: {}, immutable: true }),
  };
  return Object.assign(handle, methods);
}
