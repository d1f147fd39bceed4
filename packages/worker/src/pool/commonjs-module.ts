/**
 * Node's CommonJS `Module` class, without loading `node:module`. The public `node:module` also
 * loads Node's ESM loader and source-map support, which a pool child never uses: ~1M instructions
 * of a fork child's start-up. The class itself is already loaded (it loaded this file), and every
 * module object is one of its instances.
 */
import type ModuleClass from 'node:module';

/** The class, from this file's own module object; `node:module` where that is not Node's (a test runner's registry). */
export const CommonJsModule: typeof ModuleClass = ownModuleClass() ?? (require('node:module') as typeof ModuleClass);

function ownModuleClass(): typeof ModuleClass | undefined {
  // __filename is the bundle's own path; its entry in require.cache is the real module object.
  const own = (require.cache as Record<string, { constructor?: unknown } | undefined> | undefined)?.[__filename];
  const candidate = own?.constructor as Partial<typeof ModuleClass> | undefined;
  return typeof candidate?.wrap === 'function' && typeof candidate.createRequire === 'function' ? (candidate as typeof ModuleClass) : undefined;
}
