/**
 * Finds the file an `-A` module names, the way Node resolves a path: the file itself, the file with
 * `.js`, `.json` or `.node` added, a folder's `package.json` `main` or its `index.js`; TypeScript
 * (`.ts`, `.mts`, `.cts`, `index.ts`) when no JavaScript is found; then an installed package's name.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { CeleriacError } from '@celeriac/core';

/** Extensions loaded through tsx. */
export const TYPESCRIPT_EXTENSIONS = ['.ts', '.tsx', '.cts', '.mts'];

/**
 * The absolute path of the module `specifier` names, from `cwd`.
 * @throws CeleriacError `CELERIAC_APP_MODULE` when nothing is found there, naming what was looked for.
 */
export function resolveAppModule(specifier: string, cwd: string = process.cwd()): string {
  const path = resolve(cwd, specifier);
  const requireHere = createRequire(join(cwd, 'package.json'));
  const found =
    resolvedBy(requireHere, path) ??
    typeScriptFile(path) ??
    (isBare(specifier) ? resolvedBy(requireHere, specifier) : undefined);
  if (found !== undefined) return found;
  const orPackage = isBare(specifier) ? ', and no installed package of that name' : '';
  throw new CeleriacError(
    'CELERIAC_APP_MODULE',
    `The app module ${specifier} was not found: no file ${path} (nor with .js or .ts added), and no folder there ` +
      `with a package.json "main" or an index.js${orPackage}. Pass the file (or folder) that creates your app, ` +
      `e.g. -A ./dist/tasks.js or -A ./dist/tasks.`,
  );
}

/** What `require.resolve` finds, or undefined. */
function resolvedBy(requireHere: NodeJS.Require, request: string): string | undefined {
  try {
    return requireHere.resolve(request);
  } catch {
    return undefined;
  }
}

/** `path` with a TypeScript extension, or its folder's `index.ts`. */
function typeScriptFile(path: string): string | undefined {
  const candidates = [
    ...TYPESCRIPT_EXTENSIONS.map((extension) => `${path}${extension}`),
    ...TYPESCRIPT_EXTENSIONS.map((extension) => join(path, `index${extension}`)),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** A package name (`my-tasks`, `@org/tasks`), not a path: it may name an installed package. */
function isBare(specifier: string): boolean {
  return !isAbsolute(specifier) && !specifier.startsWith('.');
}
