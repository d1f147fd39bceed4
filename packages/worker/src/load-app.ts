/**
 * Loads the module named by `-A` with `import()`, so ES modules, CommonJS and modules with
 * top-level `await` all load (TypeScript too, when `tsx` is installed), and finds the app it
 * exports (`app`, the default export, or any export that is a Celeriac app).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CeleriacError, type CeleriacCore } from '@celeriac/core';
import { maybeRuntimeOf } from '@celeriac/core/internal';
import { resolveAppModule, TYPESCRIPT_EXTENSIONS } from './resolve-app-module';

/** An app a worker can run (the `celeriac` Celeriac class); `runtimeOf(app)` has what a worker uses. */
export type LoadedApp = CeleriacCore;

/**
 * Loads the module `specifier` names (resolved as {@link resolveAppModule} does) and returns its app.
 * @throws CeleriacError `CELERIAC_APP_MODULE` saying what to do: not found, failed to load (the
 * module's own error is the `cause`), or no app exported.
 */
export async function loadAppModule(specifier: string, cwd: string = process.cwd()): Promise<LoadedApp> {
  const path = resolveAppModule(specifier, cwd);
  if (TYPESCRIPT_EXTENSIONS.some((extension) => path.endsWith(extension))) await registerTypeScript(cwd, path);
  let exported: unknown;
  try {
    // A .json file (which require loads) needs its type said to import().
    const attributes = path.endsWith('.json') ? { with: { type: 'json' } } : undefined;
    exported = await import(pathToFileURL(path).href, attributes);
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

/**
 * Registers tsx's hooks: its ESM loader for `import()` (importing `tsx/esm` registers it), and its
 * `require` hook for CommonJS TypeScript.
 */
async function registerTypeScript(cwd: string, path: string): Promise<void> {
  const requireHere = createRequire(join(cwd, 'package.json'));
  let esm: string;
  let cjs: { register(): unknown };
  try {
    esm = requireHere.resolve('tsx/esm');
    cjs = requireHere('tsx/cjs/api') as { register(): unknown };
  } catch {
    throw new CeleriacError(
      'CELERIAC_APP_MODULE',
      `${path} is TypeScript: install tsx (npm i -D tsx) to load it directly, or compile it and pass the .js file.`,
    );
  }
  cjs.register();
  await import(pathToFileURL(esm).href);
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
    // A CommonJS module's exports, when import() found no named ones.
    ...Object.values((record.default as Record<string, unknown> | undefined) ?? {}),
  ]) {
    if (isApp(candidate)) return candidate;
  }
  return undefined;
}

/** Found by its runtime's registered symbol, so an app made by another copy of the package is found too. */
function isApp(value: unknown): value is LoadedApp {
  return maybeRuntimeOf(value) !== undefined;
}
