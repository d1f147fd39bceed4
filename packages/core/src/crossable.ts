/**
 * What the types can tell about values that cannot cross to a worker and back: a task whose
 * parameters or result hold a function, a symbol, a Promise (an argument not awaited) or a
 * WeakMap/WeakSet, at any depth of lists, tuples, Maps, Sets and plain object fields, fails to
 * compile. Class instances cannot be told apart from plain objects by their type (a registered
 * class has methods too), so their fields are not looked into: the codec checks them at send.
 */

/** Kinds of value the codec can never carry. */
type NeverCrosses =
  ((...args: never[]) => unknown) | symbol | PromiseLike<unknown> | WeakMap<object, unknown> | WeakSet<object>;

/** Values carried as they are, with nothing inside to check. */
type Leaf = string | number | boolean | bigint | null | undefined | Date | RegExp | URL | Error;

/** How deep the check looks (deeper structures are checked at send). */
type Depth = [never, 0, 1, 2, 3, 4];

/**
 * The parts of `T` that cannot cross (`never` when all can). Objects with methods (class
 * instances) are not looked into; a plain object's fields are.
 */
export type Uncrossable<T, D extends number = 5> = [D] extends [never]
  ? never
  : T extends NeverCrosses
    ? T
    : T extends Leaf
      ? never
      : T extends ReadonlyMap<infer K, infer V>
        ? Uncrossable<K, Depth[D]> | Uncrossable<V, Depth[D]>
        : T extends ReadonlySet<infer V>
          ? Uncrossable<V, Depth[D]>
          : T extends readonly unknown[]
            ? Uncrossable<T[number], Depth[D]>
            : T extends object
              ? HasMethods<T> extends true
                ? never
                : { [K in keyof T]-?: Uncrossable<T[K], Depth[D]> }[keyof T]
              : never;

/** True for an object type with a member that is a function: a class instance, most likely. */
type HasMethods<T> = true extends {
  [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? true : never;
}[keyof T]
  ? true
  : false;

/**
 * `unknown` for a task function whose parameters and result can cross; otherwise a type no function
 * satisfies, whose member names what cannot (shown in the compiler's error).
 */
export type CrossingCheck<F extends (...args: never[]) => unknown> = [
  Uncrossable<Parameters<F>> | Uncrossable<Awaited<ReturnType<F>>>,
] extends [never]
  ? unknown
  : {
      readonly 'task arguments and results must cross to a worker: no functions, symbols, Promises or WeakMaps':
        Uncrossable<Parameters<F>> | Uncrossable<Awaited<ReturnType<F>>>;
    };
