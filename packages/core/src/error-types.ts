/**
 * Error classes an app registered (`app.registerError`): a task's error of such a class reaches the
 * caller as an instance of the same class, with its own fields, instead of a plain `Error`.
 */
import { CeleriacError } from './errors';

/** A class of errors. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/** The registered error classes of one app, by name. */
export class ErrorTypes {
  private readonly byName = new Map<string, ErrorClass>();
  private readonly names = new Map<ErrorClass, string>();

  /**
   * Registers an error class under a name (its class name unless given); both the worker's app and
   * the caller's must register it.
   * @throws CeleriacError `CELERIAC_INVALID_OPTION` for a class that is not an Error or a name taken.
   */
  register(cls: ErrorClass, name: string = cls.name): void {
    if (typeof cls !== 'function' || !(cls.prototype instanceof Error)) {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        'registerError takes a class that extends Error, e.g. app.registerError(PaymentDeclined).',
      );
    }
    const taken = this.byName.get(name);
    if (taken !== undefined && taken !== cls) {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        `The error name "${name}" is already registered for another class; pass another name: ` +
          `app.registerError(cls, 'name').`,
      );
    }
    this.byName.set(name, cls);
    this.names.set(cls, name);
  }

  /** The registered name of an error's class, or of its nearest registered ancestor. */
  nameOf(error: Error): string | undefined {
    if (this.names.size === 0) return undefined;
    for (
      let proto = Object.getPrototypeOf(error) as object | null;
      proto && proto !== Error.prototype;
      proto = Object.getPrototypeOf(proto) as object | null
    ) {
      const name = this.names.get((proto as { constructor: ErrorClass }).constructor);
      if (name !== undefined) return name;
    }
    return undefined;
  }

  /** The class registered under `name`. */
  classOf(name: string): ErrorClass | undefined {
    return this.byName.get(name);
  }
}
