/**
 * The link from an app to its runtime. A property under a registered symbol, absent from the app's
 * public type: an app made by another copy of the packages (a globally installed CLI loading a
 * project's app) is still found.
 */
import { CeleriacError } from '../errors';
import type { AppRuntime } from './runtime';

const RUNTIME = Symbol.for('celeriac.runtime');

/** Attaches an app's runtime (the app's constructor does this). */
export function attachRuntime(app: object, runtime: AppRuntime): void {
  Object.defineProperty(app, RUNTIME, { value: runtime, enumerable: false, writable: false, configurable: false });
}

/** The runtime of an app, or undefined when `value` is not a Celeriac app. */
export function maybeRuntimeOf(value: unknown): AppRuntime | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [RUNTIME]?: AppRuntime })[RUNTIME];
}

/**
 * The runtime of an app: what Worker and Beat work with.
 * @throws CeleriacError `CELERIAC_INVALID_OPTION` when `app` is not a Celeriac app.
 */
export function runtimeOf(app: object): AppRuntime {
  const runtime = maybeRuntimeOf(app);
  if (!runtime)
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      'Expected a Celeriac app (new Celeriac({...})); got something else.',
    );
  return runtime;
}
