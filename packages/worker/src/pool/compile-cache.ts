/**
 * Node's own compile cache for pool children (`module.enableCompileCache`, Node 22.1 and later): a
 * `fork` child loads the same modules for every task, and with the cache V8 reads their compiled
 * code back. Node keeps it in its default directory, or where `NODE_COMPILE_CACHE` says, and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
import type * as NodeModule from 'node:module';

/** `node:module`, with the compile cache that @types/node 20 does not declare. */
type NodeModuleWithCache = typeof NodeModule & { enableCompileCache?: () => { status: number } };

/** Whether Node `version` (as in `process.versions.node`) has `module.enableCompileCache`. */
export function hasCompileCache(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

/**
 * Turns the compile cache on where this Node has it; elsewhere does nothing, and loads nothing
 * (`node:module` itself costs a child a little, so it is only required where it helps).
 * Returns whether the cache is on.
 */
export function enableCompileCacheIfAvailable(version: string): boolean {
  if (!hasCompileCache(version)) return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { enableCompileCache } = require('node:module') as NodeModuleWithCache;
  if (typeof enableCompileCache !== 'function') return false;
  try {
    enableCompileCache();
    return true;
  } catch {
    // A cache is an optimisation: a directory it cannot use leaves the child compiling, as without one.
    return false;
  }
}
