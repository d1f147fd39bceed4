/**
 * The codec turns task arguments, results and metadata into text and back, with superjson, so that
 * Date, Map, Set, BigInt, undefined, RegExp and Errors survive the trip. It refuses values that would
 * silently change on the way (functions, symbols, unregistered class instances) and names where they are.
 */
import type SuperJSON from 'superjson';
import { ErrorTypes } from './error-types';
import { SerializationError } from './errors';

type Constructor = abstract new (...args: never[]) => unknown;

/**
 * Names a value in error messages, e.g. `argument 2 of math.add`; a function is called only when
 * there is an error to report (values are checked on every call, errors are rare).
 */
export type ValueLabel = string | (() => string);

/** How a custom type is turned into JSON-safe data and back. */
export interface CustomSerializer<T, J> {
  /** True for the values this serializer handles. */
  isApplicable(value: unknown): value is T;
  serialize(value: T): J;
  deserialize(data: J): T;
}

/** Turns values into text and back; one per app, so registered types are shared by caller and worker. */
export class Codec {
  private superjsonInstance: SuperJSON | undefined;
  /** Registrations, replayed on superjson when it is first needed. */
  private readonly registrations: Array<(superjson: SuperJSON) => void> = [];
  private readonly registeredClasses = new Set<Constructor>();
  /** The error classes whose instances travel as themselves (`app.registerError`). */
  readonly errorTypes = new ErrorTypes();
  private readonly customCheckers: Array<(value: unknown) => boolean> = [];

  /**
   * Lets instances of `cls` travel in arguments and results. Their own enumerable fields are kept and
   * the prototype is restored on the other side, which must register the class under the same name.
   */
  registerClass(cls: Constructor, name: string = cls.name): void {
    this.register((superjson) =>
      superjson.registerClass(cls as unknown as Parameters<SuperJSON['registerClass']>[0], name),
    );
    this.registeredClasses.add(cls);
  }

  /** Registers a custom serializer (for types such as Buffer, Decimal, Temporal) under `name`. */
  registerCustom<T, J extends JsonValue>(serializer: CustomSerializer<T, J>, name: string): void {
    this.register((superjson) => superjson.registerCustom<T, J>(serializer, name));
    this.customCheckers.push((value) => serializer.isApplicable(value));
  }

  /**
   * superjson, loaded on first use: plain JSON data (most tasks) never needs it, and not loading it
   * shortens the start of every pool child.
   */
  private get superjson(): SuperJSON {
    if (!this.superjsonInstance) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { default: SuperJSONClass } = require('superjson') as typeof import('superjson');
      this.superjsonInstance = new SuperJSONClass();
      for (const apply of this.registrations) apply(this.superjsonInstance);
    }
    return this.superjsonInstance;
  }

  private register(apply: (superjson: SuperJSON) => void): void {
    this.registrations.push(apply);
    if (this.superjsonInstance) apply(this.superjsonInstance);
  }

  /**
   * Serializes a value to text.
   * @param label - names the value in error messages, e.g. `argument 2 of math.add`.
   * @throws SerializationError naming the path of the first value that cannot travel.
   */
  stringify(value: unknown, label: ValueLabel): string {
    // Plain JSON data (the common case) skips superjson's second walk; the text has the same shape.
    if (this.inspect(value, label) === 'plain') return JSON.stringify({ json: value });
    try {
      return this.superjson.stringify(value);
    } catch (error) {
      throw new SerializationError(`Could not serialize ${labelText(label)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /**
   * Serializes `object` with `field` set to a value given as plain JSON text (`json`, e.g. what
   * `JSON.stringify` made of a value {@link Codec.inspect} found plain), which is used as it is:
   * the same text as {@link Codec.stringify} of the whole object, without encoding that value again.
   * `object` must not hold `field` itself.
   */
  stringifyWithJson(object: Record<string, unknown>, field: string, json: string, label: ValueLabel): string {
    const { json: data, meta } = this.serialize(object, label);
    const head = JSON.stringify(data);
    const member = `${JSON.stringify(field)}:${json}`;
    const body = head === '{}' ? `{${member}}` : `${head.slice(0, -1)},${member}}`;
    return meta === undefined ? `{"json":${body}}` : `{"json":${body},"meta":${JSON.stringify(meta)}}`;
  }

  /**
   * Serializes to superjson's `{ json, meta }` pair, for embedding into a larger JSON document.
   * @param label - when given, the value is checked first (see {@link Codec.assertSerializable}).
   */
  serialize(value: unknown, label?: ValueLabel): SerializedValue {
    if (label !== undefined && this.inspect(value, label) === 'plain') return { json: value };
    const { json, meta } = this.superjson.serialize(value);
    return meta === undefined ? { json } : { json, meta };
  }

  /** Reverses {@link Codec.serialize}. */
  deserialize(data: SerializedValue): unknown {
    if (data.meta === undefined) return data.json;
    return this.superjson.deserialize(data as Parameters<SuperJSON['deserialize']>[0]);
  }

  /** Reverses {@link Codec.stringify}. */
  parse(text: string): unknown {
    return this.deserialize(JSON.parse(text) as SerializedValue);
  }

  /**
   * Throws a {@link SerializationError} when `value` holds something that would not arrive intact.
   */
  assertSerializable(value: unknown, label: ValueLabel): void {
    this.inspect(value, label);
  }

  /**
   * Checks a value and tells whether it is plain JSON data (`'plain'`) or needs superjson (`'rich'`).
   * @throws SerializationError naming the path of the first value that cannot travel.
   */
  inspect(value: unknown, label: ValueLabel): 'plain' | 'rich' {
    const walk: Walk = { rich: false, seen: undefined };
    const problem = this.findProblem(value, walk);
    if (problem) {
      const path = problem.steps.reverse().join('');
      throw new SerializationError(
        `Cannot serialize ${labelText(label)}${path ? ` at ${path}` : ''}: ${problem.reason}`,
      );
    }
    return walk.rich ? 'rich' : 'plain';
  }

  /**
   * Walks a value for something that cannot travel. The path to a problem is built on the way back
   * (each level adds its step), so a value without problems costs no strings.
   */
  private findProblem(value: unknown, walk: Walk): Problem | undefined {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return undefined;
      case 'number':
        if (!Number.isFinite(value) || Object.is(value, -0)) walk.rich = true;
        return undefined;
      case 'bigint':
      case 'undefined':
        walk.rich = true;
        return undefined;
      case 'function':
        return {
          steps: [],
          reason: 'it is a function. Tasks receive data, not code; pass a task name or a signature instead.',
        };
      case 'symbol':
        return { steps: [], reason: 'it is a symbol, which has no meaning in another process.' };
      case 'object':
        break;
    }
    if (value === null) return undefined;
    const object = value;
    if (walk.seen?.has(object)) {
      walk.rich = true; // shared or circular references: superjson restores them
      return undefined;
    }
    const proto: unknown = Object.getPrototypeOf(object);
    if (proto === Object.prototype || proto === null) {
      (walk.seen ??= new Set()).add(object);
      for (const key in object) {
        const problem = this.findProblem((object as Record<string, unknown>)[key], walk);
        if (problem) return within(problem, `.${key}`);
      }
      return undefined;
    }
    if (Array.isArray(object)) {
      (walk.seen ??= new Set()).add(object);
      for (let index = 0; index < object.length; index += 1) {
        const problem = this.findProblem(object[index], walk);
        if (problem) return within(problem, `[${index}]`);
      }
      return undefined;
    }
    walk.rich = true;
    if (this.customCheckers.some((check) => check(object))) return undefined;
    if (object instanceof Date || object instanceof RegExp || object instanceof URL || object instanceof Error)
      return undefined;
    (walk.seen ??= new Set()).add(object);
    if (object instanceof Set)
      return this.findInEntries(
        [...object].map((item, index) => [`<set item ${index}>`, item]),
        walk,
      );
    if (object instanceof Map) {
      const entries: Array<[string, unknown]> = [];
      for (const [key, item] of object) entries.push([`<map key ${String(key)}>`, key], [`.get(${String(key)})`, item]);
      return this.findInEntries(entries, walk);
    }
    if (!this.isRegisteredInstance(object)) {
      const className = (object as { constructor?: { name?: string } }).constructor?.name ?? 'anonymous class';
      const fix =
        ArrayBuffer.isView(object) || object instanceof ArrayBuffer
          ? 'Register a serializer for it with ' +
            'app.registerSerializer(name, { isApplicable, serialize, deserialize }), or pass e.g. a base64 string.'
          : `Pass plain data, or register the class with app.registerType(${className}).`;
      return { steps: [], reason: `it is an instance of ${className}, which would arrive as a plain object. ${fix}` };
    }
    return this.findInEntries(
      Object.entries(object).map(([key, item]) => [`.${key}`, item]),
      walk,
    );
  }

  private findInEntries(entries: Array<[string, unknown]>, walk: Walk): Problem | undefined {
    for (const [step, item] of entries) {
      const problem = this.findProblem(item, walk);
      if (problem) return within(problem, step);
    }
    return undefined;
  }

  private isRegisteredInstance(object: object): boolean {
    for (const cls of this.registeredClasses) if (object instanceof cls) return true;
    return false;
  }
}

interface Walk {
  rich: boolean;
  /** Objects visited so far (created at the first object: most values are flat). */
  seen: Set<object> | undefined;
}

interface Problem {
  /** The path to the value, innermost step first. */
  steps: string[];
  reason: string;
}

/** Adds the step that led to `problem` (paths are built outward, on the way back). */
function within(problem: Problem, step: string): Problem {
  problem.steps.push(step);
  return problem;
}

function labelText(label: ValueLabel): string {
  return typeof label === 'function' ? label() : label;
}

/** JSON-safe data. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** superjson's serialized form: the JSON-safe value and the metadata that restores its types. */
export interface SerializedValue {
  json: unknown;
  meta?: unknown;
}
