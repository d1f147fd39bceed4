/**
 * Loads the module named by `-A`: compiled JavaScript, or TypeScript when `tsx` is installed, and
 * finds the app it exports (`app`, the default export, or any export that is a Celeriac app).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CeleriacError, type CeleriacCore } from '@celeriac/core';
import { maybeRuntimeOf } from '@celeriac/core/internal';

/** An app a worker can run (the `celeriac` Celeriac class); `runtimeOf(app)` has what a worker uses. */
export type LoadedApp = CeleriacCore;

/** Extensions loaded through tsx (string checks: a regular expression costs a fork child 0.1–0.15 ms to compile). */
const TYPESCRIPT_EXTENSIONS = ['.ts', '.tsx', '.cts', '.mts'];

/** Loads the module and returns its app; throws `CELERIAC_APP_MODULE` with what to do. */
export function loadAppModule(specifier: string, cwd: string = process.cwd()): LoadedApp {
  const path = resolve(cwd, specifier);
  if (!existsSync(path)) {
    throw new CeleriacError(
      'CELERIAC_APP_MODULE',
      `The app module ${path} does not exist. Pass the path of the file that creates your app, e.g. -A ` +
        `./dist/tasks.js.`,
    );
  }
  if (TYPESCRIPT_EXTENSIONS.some((extension) => path.endsWith(extension))) registerTypeScript(cwd, path);
  let exported: unknown;
  try {
    // An absolute path: it loads the same from here as from the working directory.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    exported = require(path);
  } catch (error) {
    throw new CeleriacError(
      'CELERIAC_APP_MODULE',
      `The app module ${path} failed to load: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const app = findApp(exported);
  if (!app) {
    throw new CeleriacError(
      'CELERIAC_APP_MODULE',
      `The app module ${path} exports no Celeriac app. Export it, e.g. \`export const app = new Celeriac({...})\`.`,
    );
  }
  return app;
}

function registerTypeScript(cwd: string, path: string): void {
  // Loaded only for TypeScript: a child that loads compiled JavaScript never needs node:module.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const requireHere = (require('node:module') as typeof import('node:module')).createRequire(
    resolve(cwd, 'package.json'),
  );
  let api: { register(): unknown };
  try {
    api = requireHere('tsx/cjs/api') as { register(): unknown };
  } catch {
    throw new CeleriacError(
      'CELERIAC_APP_MODULE',
      `${path} is TypeScript: install tsx (npm i -D tsx) to load it directly, or compile it and pass the .js file.`,
    );
  }
  api.register();
}

function findApp(exported: unknown): LoadedApp | undefined {
  if (isApp(exported)) return exported;
  if (typeof exported !== 'object' || exported === null) return undefined;
  const record = exported as Record<string, unknown>;
  for (const candidate of [
    record.app,
    record.default,
    (record.default as Record<string, unknown> | undefined)?.app,
    ...Object.values(record),
  ]) {
    if (isApp(candidate)) return candidate;
  }
  return undefined;
}

/** Found by its runtime's registered symbol, so an app made by another copy of the package is found too. */
function isApp(value: unknown): value is LoadedApp {
  return maybeRuntimeOf(value) !== undefined;
}
