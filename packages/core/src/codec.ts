/**
 * The codec turns task arguments, results and metadata into text and back, with superjson, so that
 * Date, Map, Set, BigInt, undefined, RegExp and Errors survive the trip. It refuses values that would
 * silently change on the way (functions, symbols, unregistered class instances) and names where they are.
 */
import SuperJSON from 'superjson';
import { SerializationError } from './errors';

type Constructor = abstract new (...args: never[]) => unknown;

/** How a custom type is turned into JSON-safe data and back. */
export interface CustomSerializer<T, J> {
  /** True for the values this serializer handles. */
  isApplicable(value: unknown): value is T;
  serialize(value: T): J;
  deserialize(data: J): T;
}

/** Turns values into text and back; one per app, so registered types are shared by caller and worker. */
export class Codec {
  private readonly superjson = new SuperJSON();
  private readonly registeredClasses = new Set<Constructor>();
  private readonly customCheckers: Array<(value: unknown) => boolean> = [];

  /**
   * Lets instances of `cls` travel in arguments and results. Their own enumerable fields are kept and
   * the prototype is restored on the other side, which must register the class under the same name.
   */
  registerClass(cls: Constructor, name: string = cls.name): void {
    this.superjson.registerClass(cls as unknown as Parameters<SuperJSON['registerClass']>[0], name);
    this.registeredClasses.add(cls);
  }

  /** Registers a custom serializer (for types such as Buffer, Decimal, Temporal) under `name`. */
  registerCustom<T, J extends JsonValue>(serializer: CustomSerializer<T, J>, name: string): void {
    this.superjson.registerCustom<T, J>(serializer, name);
    this.customCheckers.push((value) => serializer.isApplicable(value));
  }

  /**
   * Serializes a value to text.
   * @param label - names the value in error messages, e.g. `argument 2 of math.add`.
   * @throws SerializationError naming the path of the first value that cannot travel.
   */
  stringify(value: unknown, label: string): string {
    this.assertSerializable(value, label);
    try {
      return this.superjson.stringify(value);
    } catch (error) {
      throw new SerializationError(`Could not serialize ${label}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Serializes to superjson's `{ json, meta }` pair, for embedding into a larger JSON document.
   * @param label - when given, the value is checked first (see {@link Codec.assertSerializable}).
   */
  serialize(value: unknown, label?: string): SerializedValue {
    if (label !== undefined) this.assertSerializable(value, label);
    const { json, meta } = this.superjson.serialize(value);
    return meta === undefined ? { json } : { json, meta };
  }

  /** Reverses {@link Codec.serialize}. */
  deserialize(data: SerializedValue): unknown {
    return this.superjson.deserialize(data as Parameters<SuperJSON['deserialize']>[0]);
  }

  /** Reverses {@link Codec.stringify}. */
  parse(text: string): unknown {
    return this.superjson.parse(text);
  }

  /**
   * Throws a {@link SerializationError} when `value` holds something that would not arrive intact.
   */
  assertSerializable(value: unknown, label: string): void {
    const problem = this.findProblem(value, '', new Set());
    if (problem) {
      throw new SerializationError(
        `Cannot serialize ${label}${problem.path ? ` at ${problem.path}` : ''}: ${problem.reason}`,
      );
    }
  }

  private findProblem(value: unknown, path: string, seen: Set<object>): { path: string; reason: string } | undefined {
    switch (typeof value) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'bigint':
      case 'undefined':
        return undefined;
      case 'function':
        return { path, reason: 'it is a function. Tasks receive data, not code; pass a task name or a signature instead.' };
      case 'symbol':
        return { path, reason: 'it is a symbol, which has no meaning in another process.' };
      case 'object':
        break;
    }
    if (value === null) return undefined;
    const object = value as object;
    if (seen.has(object)) return undefined;
    if (this.customCheckers.some((check) => check(object))) return undefined;
    if (object instanceof Date || object instanceof RegExp || object instanceof URL) return undefined;
    if (object instanceof Error) return undefined;
    seen.add(object);
    if (Array.isArray(object)) return this.findInEntries(object.map((item, index) => [`[${index}]`, item]), path, seen);
    if (object instanceof Set) return this.findInEntries([...object].map((item, index) => [`<set item ${index}>`, item]), path, seen);
    if (object instanceof Map) {
      const entries: Array<[string, unknown]> = [];
      for (const [key, item] of object) entries.push([`<map key ${String(key)}>`, key], [`.get(${String(key)})`, item]);
      return this.findInEntries(entries, path, seen);
    }
    const proto: unknown = Object.getPrototypeOf(object);
    const plain = proto === Object.prototype || proto === null;
    if (!plain && !this.isRegisteredInstance(object)) {
      const className = (object as { constructor?: { name?: string } }).constructor?.name ?? 'anonymous class';
      return {
        path,
        reason: `it is an instance of ${className}, which would arrive as a plain object. Pass plain data, or register the class with app.registerType(${className}).`,
      };
    }
    return this.findInEntries(Object.entries(object).map(([key, item]) => [`.${key}`, item]), path, seen);
  }

  private findInEntries(entries: Array<[string, unknown]>, path: string, seen: Set<object>) {
    for (const [step, item] of entries) {
      const problem = this.findProblem(item, path + step, seen);
      if (problem) return problem;
    }
    return undefined;
  }

  private isRegisteredInstance(object: object): boolean {
    for (const cls of this.registeredClasses) if (object instanceof cls) return true;
    return false;
  }
}

/** JSON-safe data. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** superjson's serialized form: the JSON-safe value and the metadata that restores its types. */
export interface SerializedValue {
  json: unknown;
  meta?: unknown;
}
