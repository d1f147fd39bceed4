import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOwnBundle, temporaryEntryFile, type CodeCacheUse } from '../src/pool/code-cache';
import { chooseCodeCacheDir, sweepStaleTemporaries } from '../src/pool/code-cache-dir';

/** The compiled module, as a pool child loads it. */
const CODE_CACHE_JS = join(__dirname, '..', 'dist', 'pool', 'code-cache.js');

describe('the code cache of pool children', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'celeriac-code-cache-test-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("caches Celeriac's bundles only, where a workspace or an install puts them", () => {
    const own = [
      '/w/packages/core/bundle/index.js',
      '/app/node_modules/@celeriac/worker/bundle/child-main.js',
      '/app/node_modules/celeriac/bundle/cli.js',
      // Windows paths match too (though without process.getuid no directory counts as private there).
      'C:\\app\\node_modules\\@celeriac\\core\\bundle\\index.js',
      // An entry is any file right in bundle/ with no other dot: the bundles are ours to name.
      '/app/node_modules/celeriac/bundle/index copy.js',
    ];
    const others = [
      '/app/dist/tasks.js',
      '/app/node_modules/superjson/dist/index.js',
      '/app/node_modules/other/bundle/index.js',
      '/app/node_modules/celeriacx/bundle/index.js',
      '/app/node_modules/@celeriac/core/bundle/index.js.map',
      '/app/node_modules/@celeriac/core/bundle/chunks/a.js',
      '/app/node_modules/@celeriac/core/bundle/.js',
    ];
    expect([...own, ...others].filter(isOwnBundle)).toEqual(own);
  });

  it("finds Node's module class without loading node:module (and its ESM loader)", () => {
    const script = `
      const { CommonJsModule } = require(${JSON.stringify(join(__dirname, '..', 'dist', 'pool', 'commonjs-module.js'))});
      const loaded = process.moduleLoadList.includes('NativeModule module');
      process.stdout.write(JSON.stringify({ loaded, same: CommonJsModule === require('node:module') }));`;
    // A file, not -e: evaluating a string loads node:module itself.
    const file = join(root, 'main.js');
    writeFileSync(file, script);
    expect(JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }))).toEqual({ loaded: false, same: true });
  });

  /** Loads `bundle` in a new process that uses the cache in `dir`; what it exported, and how. */
  function load(bundle: string, dir: string): { exported: unknown; use: CodeCacheUse } {
    // A file, not -e: evaluating a string loads node:module itself.
    const main = join(root, `main-${Math.random().toString(36).slice(2)}.js`);
    writeFileSync(
      main,
      `const { useCodeCache } = require(${JSON.stringify(CODE_CACHE_JS)});
      const use = useCodeCache(${JSON.stringify(dir)});
      const exported = require(${JSON.stringify(bundle)});
      // Neither the cache nor what it loads may pull in node:module (and with it Node's ESM loader).
      if (process.moduleLoadList.includes('NativeModule module')) throw new Error('node:module was loaded');
      process.stdout.write(JSON.stringify({ exported, use }));`,
    );
    return JSON.parse(execFileSync(process.execPath, [main], { encoding: 'utf8' })) as { exported: unknown; use: CodeCacheUse };
  }

  it('compiles a bundle once, loads it from the cache after, and compiles it again once it changed', () => {
    const bundle = join(root, 'packages', 'core', 'bundle', 'index.js');
    mkdirSync(join(root, 'packages', 'core', 'bundle'), { recursive: true });
    writeFileSync(bundle, 'module.exports = "first";');
    const dir = join(root, 'cache');

    expect(load(bundle, dir)).toEqual({ exported: 'first', use: { fromCache: [], compiled: [bundle] } });
    expect(readdirSync(dir)).toHaveLength(1);
    expect(load(bundle, dir)).toEqual({ exported: 'first', use: { fromCache: [bundle], compiled: [] } });

    // The same length, so V8's own check (which compares lengths) would take the old code.
    writeFileSync(bundle, 'module.exports = "other";');
    const later = statSync(bundle).mtimeMs / 1000 + 5;
    utimesSync(bundle, later, later);
    expect(load(bundle, dir)).toEqual({ exported: 'other', use: { fromCache: [], compiled: [bundle] } });
    expect(load(bundle, dir)).toEqual({ exported: 'other', use: { fromCache: [bundle], compiled: [] } });
  });

  it('leaves other modules to Node, and compiles without a directory', () => {
    const plain = join(root, 'tasks.js');
    writeFileSync(plain, 'module.exports = 7;');
    expect(load(plain, join(root, 'cache'))).toEqual({ exported: 7, use: { fromCache: [], compiled: [] } });
    expect(() => readdirSync(join(root, 'cache'))).toThrow();
  });

  it('removes the temporary files of entries whose writers were killed, once they are a minute old', () => {
    const entry = join(root, 'index-1a2b.v8cache');
    const [stale, young] = [temporaryEntryFile(entry), temporaryEntryFile(join(root, 'child-loop-9f.v8cache'))];
    const other = join(root, 'notes.txt.1.x');
    for (const file of [entry, stale, young, other]) writeFileSync(file, '');
    const minuteAgo = Date.now() / 1000 - 61;
    for (const file of [entry, stale, other]) utimesSync(file, minuteAgo, minuteAgo);
    sweepStaleTemporaries(root, Date.now());
    // The old temporary goes; the entry, the one still being written and files not ours stay.
    expect(readdirSync(root).map((name) => join(root, name)).sort()).toEqual([young, entry, other].sort());
  });

  it("uses a directory of the user's own that no one else can write to, or none", () => {
    // Linux, as the rest of the suite: process.getuid exists.
    const uid = process.getuid?.() as number;
    const dir = chooseCodeCacheDir(undefined, root, uid);
    expect(dir).toBe(join(root, `celeriac-code-cache-${uid}`));
    expect(statSync(dir as string).mode & 0o777).toBe(0o700);
    chmodSync(dir as string, 0o777);
    expect(chooseCodeCacheDir(undefined, root, uid)).toBeUndefined();
    expect(chooseCodeCacheDir('off', root, uid)).toBeUndefined();
    expect(chooseCodeCacheDir('', root, uid)).toBeUndefined();
    expect(chooseCodeCacheDir('/var/cache/celeriac', root, uid)).toBe('/var/cache/celeriac');
  });
});
