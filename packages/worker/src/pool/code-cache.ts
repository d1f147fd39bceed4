/**
 * V8's code cache for Celeriac's own bundles in pool children. A fork child loads @celeriac/core
 * and the celeriac package for every task; compiling them (and the functions they run while the
 * app loads) was ~2 ms of the child's start-up. With the cache, V8 reads the compiled code back
 * instead. Node 22 has this built in (`module.enableCompileCache`); Node 20 does not.
 *
 * Only our bundles are cached (their content is known: no dynamic `import()`); an app's own
 * modules load as Node loads them, and so does everything while source maps are on. An entry is
 * keyed by the file's path, size, inode and times; V8 itself refuses data made by another version
 * or with other flags, and such an entry is written again.
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';
import type ModuleInstance from 'node:module';
import { CommonJsModule as Module } from './commonjs-module';

/** The environment variable that names the cache directory (set by the worker, see code-cache-dir.ts). */
export const CODE_CACHE_ENV = 'CELERIAC_CODE_CACHE';

/**
 * The folders that hold Celeriac's bundles, in an install and in this workspace: a cached file is
 * `<folder>/bundle/<entry>.js`. Matched with string methods, not a regular expression: compiling
 * one costs a fork child 0.1–0.15 ms.
 */
const OWN_PACKAGE_FOLDERS = [
  ...['/@celeriac/core', '/@celeriac/redis', '/@celeriac/worker', '/@celeriac/beat', '/celeriac'],
  // This workspace's folders (its `celeriac` is matched above).
  ...['/packages/core', '/packages/redis', '/packages/worker', '/packages/beat'],
];

/** Node's loader method that compiles and runs a CommonJS module (not in its public types). */
type CompileMethod = (this: ModuleInstance, content: string, filename: string) => unknown;

/** A compiled bundle whose cache entry is missing or stale, written when the process exits. */
interface Unsaved {
  file: string;
  key: string;
  script: Script;
}

/** Which bundles a process loaded from the cache, and which it had to compile (full paths). */
export interface CodeCacheUse {
  fromCache: string[];
  compiled: string[];
}

/** Whether `filename` is one of Celeriac's bundles (exported for the tests). */
export function isOwnBundle(filename: string): boolean {
  const path = filename.replaceAll('\\', '/');
  const folderEnd = path.lastIndexOf('/bundle/');
  if (folderEnd < 0 || !path.endsWith('.js')) return false;
  const folder = path.slice(0, folderEnd);
  return isEntryName(path.slice(folderEnd + '/bundle/'.length, -'.js'.length)) && OWN_PACKAGE_FOLDERS.some((own) => folder.endsWith(own));
}

/** A bundle's entry name: a file right in bundle/, with no other dot (not a map, not a chunk). */
function isEntryName(name: string): boolean {
  return name.length > 0 && !name.includes('/') && !name.includes('.');
}

/**
 * Makes this process load Celeriac's bundles through the cache in `dir`, and write the entries it
 * lacked when it exits (by then they hold the functions the task ran, too). Does nothing without a
 * directory. Call it before anything loads @celeriac/core. The returned lists fill as bundles load.
 */
export function useCodeCache(dir: string | undefined): CodeCacheUse {
  const use: CodeCacheUse = { fromCache: [], compiled: [] };
  if (!dir) return use;
  const prototype = Module.prototype as unknown as { _compile: CompileMethod };
  const compile = prototype._compile;
  const unsaved: Unsaved[] = [];
  prototype._compile = function (this: ModuleInstance, content: string, filename: string): unknown {
    if (!isOwnBundle(filename)) return compile.call(this, content, filename);
    // A file starting with #! is not plain JavaScript to vm.Script; and with source maps on, Node's own
    // loader must compile, to map stack traces back to the sources.
    if (content.startsWith('#!') || process.sourceMapsEnabled) return compile.call(this, content, filename);
    if (!isPrivateDir(dir)) return compile.call(this, content, filename);
    const { file, key } = entryOf(dir, filename, content);
    const cachedData = readEntry(file, key);
    const script = new Script(Module.wrap(content), { filename, cachedData, importModuleDynamically: vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER });
    if (!cachedData || script.cachedDataRejected) {
      use.compiled.push(filename);
      unsaved.push({ file, key, script });
    } else {
      use.fromCache.push(filename);
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dirname(filename));
  };
  process.once('exit', () => {
    for (const entry of unsaved) writeEntry(dir, entry);
  });
  return use;
}

/** Where a bundle's entry lives, and the key that says which version of the file it was made from. */
function entryOf(dir: string, filename: string, content: string): { file: string; key: string } {
  const stats = statSync(filename);
  // mtime alone can be kept by a copy (rsync -a, tar): inode and ctime change with any new file.
  const key = `${filename}\n${stats.size}\n${content.length}\n${stats.ino}\n${stats.mtimeMs}\n${stats.ctimeMs}\n${process.version}\n`;
  return { file: join(dir, `${basename(filename, '.js')}-${hash(filename)}.v8cache`), key };
}

/** The cached code, when the entry exists and was made from this version of the file. */
function readEntry(file: string, key: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return undefined;
  }
  const header = Buffer.byteLength(key);
  return data.length > header && data.toString('utf8', 0, header) === key ? data.subarray(header) : undefined;
}

/** Writes an entry whole or not at all: children that start meanwhile never read half of one. */
function writeEntry(dir: string, { file, key, script }: Unsaved): void {
  try {
    if (!isPrivateDir(dir)) return;
    const temporary = temporaryEntryFile(file);
    writeFileSync(temporary, Buffer.concat([Buffer.from(key), script.createCachedData()]));
    renameSync(temporary, file);
  } catch {
    // A cache is an optimisation: without the entry the next child compiles, as without a cache.
  }
}

/** Where a child writes an entry before it renames it into place: `<entry>.<pid>.<random>`. */
export function temporaryEntryFile(file: string): string {
  return `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
}

/** Whether a file name is one {@link temporaryEntryFile} made (the worker sweeps old ones out). */
export function isTemporaryEntryFile(name: string): boolean {
  // A regular expression is fine here: only the worker asks, children never do.
  return /\.v8cache\.\d+\.[0-9a-z]+$/.test(name);
}

/** FNV-1a (32 bits) of a path: a short, stable file name without loading node:crypto. */
function hash(text: string): string {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
  return (value >>> 0).toString(16);
}

/**
 * Makes `dir` if it is missing, and tells whether it is `uid`'s own real directory, closed to
 * everyone else: then no one else can plant code in it. The worker asks before it hands a directory
 * to its children (code-cache-dir.ts), and each child again, once (see isPrivateDir).
 */
export function isPrivateDirectory(dir: string, uid: number | undefined): boolean {
  if (uid === undefined) return false;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(dir);
    return stats.isDirectory() && stats.uid === uid && (stats.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

let privateDir: boolean | undefined;

/**
 * Whether the cache directory is still private, asked once per child: a directory in /tmp can be
 * removed (by a cleaner) and made again by someone else while a worker runs.
 */
function isPrivateDir(dir: string): boolean {
  privateDir ??= isPrivateDirectory(dir, process.getuid?.());
  return privateDir;
}
